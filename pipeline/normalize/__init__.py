"""Normalizers: rules that turn parsed fields into the posting schema."""
