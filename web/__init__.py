"""The jobharbor web app: search, job pages and stats over the serving schema
(FastAPI + Jinja2, server-rendered, works without JavaScript)."""
