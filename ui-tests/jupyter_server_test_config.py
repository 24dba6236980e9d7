"""Server configuration of the galata UI tests.

The port comes from KERNEL_STATE_UI_PORT (default 8898), shared with playwright.config.js.
"""

import os
from tempfile import mkdtemp

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821

c.ServerApp.port = int(os.environ.get("KERNEL_STATE_UI_PORT", "8898"))  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.ServerApp.root_dir = os.environ.get(  # noqa: F821
    "JUPYTERLAB_GALATA_ROOT_DIR", mkdtemp(prefix="kernel-state-ui-")
)
c.FileContentsManager.delete_to_trash = False  # noqa: F821
# Notes on variables go to a throw-away file, not the user's Jupyter data directory.
c.KernelStateApp.annotations_path = os.path.join(  # noqa: F821
    mkdtemp(prefix="kernel-state-ui-notes-"), "annotations.json"
)
c.NotebookNotary.db_file = ":memory:"  # noqa: F821
# Uncomment to inspect the server while debugging:
# c.ServerApp.log_level = "DEBUG"
