"""Jupyter AI v3 with nothing to configure: its personas get this server's MCP URL and a
credential our MCP authentication accepts.

Jupyter AI's persona manager hands ACP agents (Claude Code, Codex, Gemini, …) the MCP
servers in ``PersonaManager.builtin_mcp_servers``; its default is
``http://localhost:<MCPExtensionApp.mcp_port or 3001>/mcp`` without headers, which is the
wrong port (ours is chosen by the OS) and no credential. When the user has not configured
that trait, this module sets it -- in the persona manager extension's config, read by every
chat's ``PersonaManager`` when it is created, and on the managers that already exist -- to
the bound URL with ``Authorization: token <credential>``. The credential is the per-process
one of ``mcp_auth``: valid for MCP only, in memory only.
"""

from __future__ import annotations

import logging
from typing import Any

from traitlets.config import Config

PERSONA_EXTENSION = "jupyter_ai_persona_manager"
TRAIT = "builtin_mcp_servers"


def user_configured(config: Any) -> bool:
    section = config.get("PersonaManager") if config is not None else None
    return section is not None and TRAIT in section


def offer_mcp_server(serverapp: Any, *, name: str, url: str, credential: str,
                     log: logging.Logger) -> bool:
    """Give Jupyter AI's personas ``url`` with our credential unless the user configured
    ``PersonaManager.builtin_mcp_servers``. Returns whether it was offered."""
    manager = getattr(serverapp, "extension_manager", None)
    apps = list((getattr(manager, "extension_apps", {}) or {}).get(PERSONA_EXTENSION, ()))
    if not apps:
        return False  # Jupyter AI is not installed (or not enabled) here
    if user_configured(serverapp.config) or any(user_configured(a.config) for a in apps):
        log.info("Jupyter AI: keeping the configured PersonaManager.builtin_mcp_servers; "
                 "its agents reach this server's MCP tools only with a credential it accepts")
        return False
    servers = [{"type": "http", "name": name, "url": url,
                "headers": [{"name": "Authorization", "value": f"token {credential}"}]}]
    for app in apps:  # read by each chat's PersonaManager when it is created
        app.update_config(Config({"PersonaManager": {TRAIT: servers}}))
    settings = getattr(getattr(serverapp, "web_app", None), "settings", {}) or {}
    existing = (settings.get("jupyter-ai") or {}).get("persona-managers") or {}
    for persona_manager in list(existing.values()):
        setattr(persona_manager, TRAIT, [dict(s) for s in servers])
    log.info("Jupyter AI: its agents get this server's MCP tools at %s (%d open chats updated)",
             url, len(existing))
    return True
