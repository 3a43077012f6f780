"""The web console at ``/console``: a static page that calls the same HTTP API as everyone else.

Everything it loads ships inside the package (``static/``, with Swagger UI vendored for ``/docs`` by
``scripts/vendor_assets.py``), so it works offline right after ``pip install huiyi``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from huiyi.faces.http_headers import csp_with_inline_scripts

__all__ = ["STATIC", "mount_console"]

STATIC = Path(str(resources.files("huiyi.faces.console") / "static"))
SWAGGER = "/console/static/vendor/swagger-ui"


def mount_console(app: FastAPI) -> None:
    """Serve the console at ``/console`` (``/`` redirects there) and Swagger UI at ``/docs`` from the package."""

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/console")

    @app.get("/console", include_in_schema=False)
    async def console() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — API",
            swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
        )
        # Swagger UI starts from one inline script of FastAPI's; the CSP names it by hash, and nothing else
        page.headers["Content-Security-Policy"] = csp_with_inline_scripts(bytes(page.body).decode())
        return page

    app.mount("/console/static", StaticFiles(directory=STATIC), name="console-static")
