"""Every platform format the sandbox serves. A new format is a module with a
`FORMAT` (see sandbox.routing) added to this list."""

from sandbox.formats import greenhouse, html_site, scenarios
from sandbox.routing import Format

FORMATS: list[Format] = [greenhouse.FORMAT, html_site.FORMAT, scenarios.FORMAT]
