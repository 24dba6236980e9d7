"""Who may call: authentication, authorization (execute for probe routes), XSRF."""

from __future__ import annotations

import json

import pytest
from jupyter_server.auth.authorizer import Authorizer
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from .browser_login import browser_login
from .kernel_utils import start_kernel

pytestmark = pytest.mark.kernel


class ReadOnlyAuthorizer(Authorizer):
    """A read-only deployment: everything but `execute`."""

    def is_authorized(self, handler, user, action, resource):  # type: ignore[no-untyped-def]
        return action != "execute"


class DenyKernelsAuthorizer(Authorizer):
    def is_authorized(self, handler, user, action, resource):  # type: ignore[no-untyped-def]
        return resource != "kernels" or handler.request.method == "POST"


ROUTES = [
    ("kernels",),
    ("kernels", "{kid}", "variables"),
    ("kernels", "{kid}", "variables", "x"),
    ("kernels", "{kid}", "variables", "x", "rows"),
    ("kernels", "{kid}", "variables", "x", "timeline"),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "kernel_id", ["{kid}", "00000000-0000-0000-0000-000000000000"]
)
async def test_unauthenticated_gets_403_whether_or_not_the_kernel_exists(
    jp_fetch, route, kernel_id
):  # type: ignore[no-untyped-def]
    kid = await start_kernel(jp_fetch)
    parts = [p.replace("{kid}", kernel_id.replace("{kid}", kid)) for p in route]
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", *parts, headers={"Authorization": ""})
    assert e.value.code == 403


async def test_unauthenticated_delete_gets_403_and_deletes_nothing(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "x",
                       method="DELETE", headers={"Authorization": ""})
    assert e.value.code == 403
    assert (await kernel.run("assert x == 1"))["status"] == "ok"


class TestReadOnly:
    @pytest.fixture
    def jp_server_config(self):  # type: ignore[no-untyped-def]
        return Config({
            "ServerApp": {
                "jpserver_extensions": {"jupyter_kernel_state": True},
                "authorizer_class": ReadOnlyAuthorizer,
            }
        })

    async def test_probe_routes_need_execute(self, jp_fetch):  # type: ignore[no-untyped-def]
        kid = await start_kernel(jp_fetch)
        listing = await jp_fetch("api", "kernel-state", "kernels")
        assert kid in listing.body.decode()
        for parts in (("variables",), ("variables", "x"), ("variables", "x", "rows"),
                      ("variables", "x", "timeline")):
            with pytest.raises(HTTPClientError) as e:
                await jp_fetch("api", "kernel-state", "kernels", kid, *parts)
            assert e.value.code == 403
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("api", "kernel-state", "kernels", kid, "variables", "x",
                           method="DELETE")
        assert e.value.code == 403


class TestNoKernelAccess:
    @pytest.fixture
    def jp_server_config(self):  # type: ignore[no-untyped-def]
        return Config({
            "ServerApp": {
                "jpserver_extensions": {"jupyter_kernel_state": True},
                "authorizer_class": DenyKernelsAuthorizer,
            }
        })

    async def test_listing_needs_read(self, jp_fetch):  # type: ignore[no-untyped-def]
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("api", "kernel-state", "kernels")
        assert e.value.code == 403


async def test_cookie_authenticated_get_needs_xsrf(jp_fetch, jp_serverapp):  # type: ignore[no-untyped-def]
    kid = await start_kernel(jp_fetch)
    # Log in with the token as a browser would, to get a login cookie and an _xsrf cookie.
    cookie_header, xsrf = await browser_login(jp_fetch, jp_serverapp)
    # Without the X-XSRFToken header a cookie-authenticated GET that runs probe code fails.
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kid, "variables",
                       headers={"Authorization": "", "Cookie": cookie_header})
    assert e.value.code == 403
    ok = await jp_fetch("api", "kernel-state", "kernels", kid, "variables",
                        headers={"Authorization": "", "Cookie": cookie_header,
                                 "X-XSRFToken": xsrf})
    assert json.loads(ok.body)["kernel_id"] == kid
    # The same for the explorer's windows and for deleting a variable.
    for method, parts in (("GET", ("x", "rows")), ("DELETE", ("x",))):
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("api", "kernel-state", "kernels", kid, "variables", *parts,
                           method=method, headers={"Authorization": "", "Cookie": cookie_header})
        assert e.value.code == 403, (method, parts)
        with pytest.raises(HTTPClientError) as e:  # with the token: past XSRF, x is missing
            await jp_fetch("api", "kernel-state", "kernels", kid, "variables", *parts,
                           method=method, headers={"Authorization": "", "Cookie": cookie_header,
                                                   "X-XSRFToken": xsrf})
        assert e.value.code == 404, (method, parts)
