"""Sandbox formats: each module is one platform's routes; register new ones by adding
their `FORMAT` (see sandbox.routing) added to this list."""

from sandbox.formats import greenhouse, html_site, js_site, paged_api
from sandbox.routing import Format

FORMATS: list[Format] = [greenhouse.FORMAT, html_site.FORMAT, js_site.FORMAT, paged_api.FORMAT]
