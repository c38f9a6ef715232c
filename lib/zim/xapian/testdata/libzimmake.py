#!/usr/bin/python3
"""Write a ZIM with libzim's own Creator (python3-libzim), full-text and
title indexes on: libzimmake.py OUT.zim LANG < items.json, a JSON list of
{"path", "title", "html"}; each item is an HTML front article, or, with
"target" instead of "html", a front-article redirection to that path."""
import json, sys
from libzim.writer import Creator, Hint, Item, StringProvider

class Page(Item):
    def __init__(self, d):
        super().__init__()
        self.d = d
    def get_path(self):
        return self.d["path"]
    def get_title(self):
        return self.d["title"]
    def get_mimetype(self):
        return "text/html"
    def get_contentprovider(self):
        return StringProvider(self.d["html"])
    def get_hints(self):
        return {Hint.FRONT_ARTICLE: True}

items = json.load(sys.stdin)
with Creator(sys.argv[1]).config_indexing(True, sys.argv[2]) as c:
    c.set_mainpath(items[0]["path"])
    for d in items:
        if "target" in d:
            c.add_redirection(d["path"], d["title"], d["target"], {Hint.FRONT_ARTICLE: True})
        else:
            c.add_item(Page(d))
    c.add_metadata("Language", sys.argv[2])
