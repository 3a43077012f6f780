#!/usr/bin/env python3
"""Refresh the JavaScript the package vendors, from the npm registry, at pinned versions.

    python scripts/vendor_assets.py

Each package's files and its licence land in ``src/huiyi/faces/console/static/vendor/<name>/``, so
``/docs`` (Swagger UI) works offline. Bump a version here, run it, commit the result.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import urllib.request
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "src/huiyi/faces/console/static/vendor"
REGISTRY = "https://registry.npmjs.org"

# npm package, version, files to keep (paths inside the tarball's package/), folder name
PACKAGES = [
    (
        "swagger-ui-dist",
        "5.17.14",
        ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"],
        "swagger-ui",
    ),
]


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return bytes(response.read())


def vendor(name: str, version: str, files: list[str], folder: str) -> None:
    meta = json.loads(fetch(f"{REGISTRY}/{name}/{version}"))
    tarball = fetch(meta["dist"]["tarball"])
    integrity = meta["dist"].get("shasum")
    if integrity and hashlib.sha1(tarball).hexdigest() != integrity:
        raise SystemExit(f"{name}@{version}: the tarball does not match the registry's shasum")
    target = VENDOR / folder
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for file in files:
            member = archive.extractfile(f"package/{file}")
            if member is None:
                raise SystemExit(f"{name}@{version} has no {file}")
            (target / file).write_bytes(member.read())
    (target / "VERSION").write_text(f"{name}@{version} from {meta['dist']['tarball']}\n", encoding="utf-8")
    print(f"vendored {name}@{version} into {target}")


if __name__ == "__main__":
    for package in PACKAGES:
        vendor(*package)
