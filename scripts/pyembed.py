"""Unpack a CPython build from the Go module github.com/kluctl/go-embed-python.

usage: python3 scripts/pyembed.py MODULE_DIR PLATFORM PREFIX

MODULE_DIR is the module as `go mod download` leaves it (checked against
sum.golang.org by the go command), PLATFORM e.g. linux-amd64. Its
python/internal/data/PLATFORM holds a python-build-standalone install with
files.json listing every file (size, mode, symlink target, and whether it
is stored gzip-compressed as NAME.gz). The install is written to PREFIX.tmp
and renamed to PREFIX when complete.
"""

import gzip
import json
import os
import shutil
import sys


def main():
    mod, platform, prefix = sys.argv[1:4]
    src = os.path.join(mod, "python", "internal", "data", platform)
    with open(os.path.join(src, "files.json")) as f:
        files = json.load(f)["files"]
    tmp = prefix + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for e in files:
        name, dst = e["name"], os.path.join(tmp, e["name"])
        if os.path.normpath(name).startswith("..") or os.path.isabs(name):
            sys.exit("pyembed: %s: path outside the install: %r" % (src, name))
        mode = e["perm"]
        if "symlink" in e:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(e["symlink"], dst)
        elif mode & 0x80000000:  # Go's fs.ModeDir
            os.makedirs(dst, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if e.get("compressed"):
                with gzip.open(os.path.join(src, name + ".gz"), "rb") as r, open(dst, "wb") as w:
                    shutil.copyfileobj(r, w, 1 << 20)
            else:
                shutil.copyfile(os.path.join(src, name), dst)
            if os.path.getsize(dst) != e["size"]:
                sys.exit("pyembed: %s: %s is %d bytes, files.json says %d" % (src, name, os.path.getsize(dst), e["size"]))
            os.chmod(dst, mode & 0o777)
    shutil.rmtree(prefix, ignore_errors=True)
    os.rename(tmp, prefix)


if __name__ == "__main__":
    main()
