#!/usr/bin/python3
"""Write test ZIM archives with python3-libzim (the openzim writer).

usage: make_zim.py edge OUT.zim [none|zstd] [safe]   (safe: without the ../ and /abs names)
       make_zim.py bench OUT.zim N      (N articles, ~2 KB each, plus redirects and images)
"""
import sys
from libzim.writer import Creator, Item, StringProvider, Hint, Compression

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f0005000201f2a3c0770000000049454e44ae426082")


class It(Item):
    def __init__(self, path, title, mime, content, front=False):
        super().__init__()
        self.p, self.t, self.m, self.c, self.f = path, title, mime, content, front

    def get_path(self):
        return self.p

    def get_title(self):
        return self.t

    def get_mimetype(self):
        return self.m

    def get_contentprovider(self):
        return StringProvider(self.c)

    def get_hints(self):
        return {Hint.FRONT_ARTICLE: self.f, Hint.COMPRESS: True}


def html(title, body=""):
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>"


def edge(out, comp, safe=False):
    c = Creator(out).config_indexing(False, "eng")
    c.config_compression(Compression.none if comp == "none" else Compression.zstd)
    with c:
        c.set_mainpath("index.html")
        c.add_illustration(48, PNG)
        for k, v in [("Title", "Edge cases"), ("Description", "paths that test extractors"),
                     ("Language", "eng"), ("Creator", "arcport"), ("Publisher", "arcport"),
                     ("Date", "2024-01-02"), ("Name", "arcport_edge"), ("Tags", "_test;edge")]:
            c.add_metadata(k, v)
        items = [
            ("index.html", "Home", "text/html", html("Home", '<a href="a/b/c.html">c</a>'), True),
            ("a/b/c.html", "Deep C", "text/html", html("Deep"), True),
            ("a", "A file named like a dir", "text/plain", "I am a, a file", False),
            ("img.png", "", "image/png", PNG, False),
            ("empty.txt", "Empty", "text/plain", "", False),
            ("long/" + "x" * 300 + ".html", "Long one", "text/html", html("long 1"), True),
            ("long/" + "x" * 300 + "y.html", "Long two", "text/html", html("long 2"), True),
            ("../escape.html", "Escape", "text/html", html("escape"), True),
            ("/abs.html", "Abs", "text/html", html("abs"), True),
            ("a/../../up.html", "Up", "text/html", html("up"), True),
            ("./dot.html", "Dot", "text/html", html("dot"), True),
            ("x//y.html", "Double slash", "text/html", html("dbl"), True),
            ("dé jà/vu ü.html", "Unicode", "text/html", html("ü"), True),
            ("q?x=1&y=2.html", "Query", "text/html", html("query"), True),
            ("sp ace.css", "", "text/css", "body{color:red}", False),
            ("data.bin", "", "application/octet-stream", bytes(range(256)) * 40, False),
            # f is a file: what lies below it goes to the errors folder,
            # where these two land on the same name, f%2fg%2fa.html
            ("f", "f is a file", "text/plain", "f, a file", False),
            ("f/g/a.html", "Below a file", "text/html", html("f/g/a"), True),
            ("f/g%2fa.html", "Below a file, same errors name", "text/html", html("f/g%2fa"), True),
        ] + [("f/n%d.html" % i, "Below f %d" % i, "text/html", html("n%d" % i), False) for i in range(40)]
        evil = ("../", "/abs", "a/../", "./")
        for p, t, m, b, f in items:
            if safe and p.startswith(evil):
                continue
            c.add_item(It(p, t, m, b, f))
        c.add_redirection("redir.html", "Redirect to C", "a/b/c.html", {Hint.FRONT_ARTICLE: True})
        c.add_redirection("img-redirect", "Image redirect", "img.png", {})
        c.add_redirection("r1.html", "Chain 1", "r2.html", {})
        c.add_redirection("r2.html", "Chain 2", "index.html", {})
        c.add_redirection("deep/er/redir.html", "Deep redirect", "q?x=1&y=2.html", {})
        if not safe:
            c.add_redirection("../evil-redirect.html", "Evil redirect", "a/b/c.html", {})


def bench(out, n):
    import random
    rnd = random.Random(42)
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit",
             "sed", "do", "eiusmod", "tempor", "incididunt", "ut", "labore", "magna", "aliqua"]
    c = Creator(out).config_indexing(False, "eng")
    c.config_compression(Compression.zstd)
    with c:
        c.set_mainpath("A/Article_0")
        c.add_illustration(48, PNG)
        c.add_metadata("Title", "bench")
        c.add_metadata("Language", "eng")
        for i in range(n):
            body = " ".join(rnd.choice(words) for _ in range(300))
            c.add_item(It(f"A/Article_{i}", f"Article {i}", "text/html",
                          html(f"Article {i}", f"<p>{body}</p>"), True))
            if i % 10 == 0:
                c.add_item(It(f"I/img_{i}.png", "", "image/png", PNG, False))
            if i % 20 == 0:
                c.add_redirection(f"A/Redirect_{i}", f"Redirect {i}", f"A/Article_{i}", {})


if __name__ == "__main__":
    if sys.argv[1] == "edge":
        edge(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "zstd", "safe" in sys.argv[4:])
    elif sys.argv[1] == "bench":
        bench(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
