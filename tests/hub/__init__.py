"""A real JupyterHub for the hub tests (pytest and the Playwright hub spec)."""
