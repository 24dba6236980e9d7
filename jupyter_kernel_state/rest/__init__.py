"""The REST door: the route table (``table.py``), its parameters (``params.py``), the
handlers made from it (``handlers.py``: ``build_handlers``), the OpenAPI document
(``openapi.py``) and the frontend's generated types (``typescript.py``).

Importing the table does not import jupyter_server (the CLI and the client read it)."""

from .table import NAMESPACE, ROUTES, Route, parse

__all__ = ["NAMESPACE", "ROUTES", "Route", "parse"]
