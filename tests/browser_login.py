"""A browser's login with the server's token: its cookies and XSRF token, for the tests of
cookie-authenticated requests (jupyter_server's XSRF check applies to them only)."""

from __future__ import annotations

from http.cookies import SimpleCookie
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError


async def browser_login(jp_fetch: Any, jp_serverapp: Any) -> tuple[str, str]:
    """Log in through the login page as a browser does: ``(Cookie header, _xsrf value)``."""
    login_page = await jp_fetch("login", headers={"Authorization": ""})
    cookies: SimpleCookie = SimpleCookie()
    for header in login_page.headers.get_list("Set-Cookie"):
        cookies.load(header)
    xsrf = cookies["_xsrf"].value
    body = f"_xsrf={xsrf}&password={jp_serverapp.identity_provider.token}"
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("login", method="POST", body=body, follow_redirects=False,
                       headers={"Authorization": "", "Cookie": f"_xsrf={xsrf}"})
    assert e.value.code == 302
    for header in e.value.response.headers.get_list("Set-Cookie"):
        cookies.load(header)
    return "; ".join(f"{k}={m.value}" for k, m in cookies.items()), xsrf
