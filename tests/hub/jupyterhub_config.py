"""JupyterHub configuration of the hub tests (pytest ``tests/test_hub.py`` and the
Playwright spec ``ui-tests/tests-hub/``).

Everything comes from environment variables set by ``tests/hub/hub.py``; every file the hub,
the proxy and the single-user servers write lives under ``KERNEL_STATE_HUB_DIR``. Nothing
here is meant for production: a shared password, and every user's server runs as the
current (root) user.
"""

import json
import os
import sys
from pathlib import Path

c = get_config()  # type: ignore[name-defined]  # noqa: F821

env = os.environ
workdir = Path(env["KERNEL_STATE_HUB_DIR"])
loopback = "127.0.0.1"

# The public proxy URL (the only URL the tests use), the hub's own API, the proxy's API.
c.JupyterHub.ip = loopback
c.JupyterHub.port = int(env["KERNEL_STATE_HUB_PORT"])
c.JupyterHub.hub_ip = loopback
c.JupyterHub.hub_port = int(env["KERNEL_STATE_HUB_API_PORT"])
c.ConfigurableHTTPProxy.api_url = f"http://{loopback}:{env['KERNEL_STATE_HUB_PROXY_API_PORT']}"
c.ConfigurableHTTPProxy.pid_file = str(workdir / "jupyterhub-proxy.pid")

c.JupyterHub.db_url = f"sqlite:///{workdir / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(workdir / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(workdir / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# A shared password (DummyAuthenticator.password is deprecated since JupyterHub 5.3).
users = set(env.get("KERNEL_STATE_HUB_USERS", "alice,bob").split(","))
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = env["KERNEL_STATE_HUB_PASSWORD"]
c.Authenticator.allowed_users = users

# Single-user servers: the venv's jupyterhub-singleuser (JupyterLab and our extension come
# from the venv's own config, etc/jupyter/jupyter_server_config.d), run as the current user
# with HOME in the work dir, so Jupyter's data dir (annotations, notebook signatures,
# runtime files) is a throw-away one.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(workdir / "home" / "{username}")
c.Spawner.cmd = [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]
c.Spawner.args = ["--allow-root", "--FileContentsManager.delete_to_trash=False",
                  # e.g. the gateway every user's server uses (tests/multiuser.py)
                  *json.loads(env.get("KERNEL_STATE_HUB_SPAWNER_ARGS", "[]"))]
c.Spawner.default_url = "/lab"
c.Spawner.ip = loopback
# Marks every process of this hub (the single-user servers pass it on to their kernels), so
# that tests/hub/hub.py can find and end whatever is left after a failure.
c.Spawner.environment = {"KERNEL_STATE_HUB_MARKER": env["KERNEL_STATE_HUB_MARKER"]}
# A loaded 2-core machine: starting JupyterLab can take a while.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.tornado_settings = {"slow_spawn_timeout": 0}

# The tests' own credential: a service whose token can create tokens for the users and
# start and stop their servers (it does not itself use the single-user servers).
c.JupyterHub.services = [
    {"name": "kernel-state-tests", "api_token": env["KERNEL_STATE_HUB_SERVICE_TOKEN"]}
]
c.JupyterHub.load_roles = [
    {
        "name": "kernel-state-tests",
        "scopes": ["admin:users", "admin:servers", "tokens"],
        "services": ["kernel-state-tests"],
    }
]
