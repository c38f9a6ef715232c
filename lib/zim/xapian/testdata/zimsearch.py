#!/usr/bin/python3
"""Search ZIMs with libzim's own Searcher (python3-libzim):

    zimsearch.py A.zim [B.zim ...] < queries.json

queries.json is a JSON list of {"word", "path"}. For each ZIM and query,
one JSON line: {"n": estimated matches, "top": the first ten paths, best
first, "rank": the 0-based rank of "path" among all the results, -1 when it
is not one of them}."""
import json, sys
from libzim.reader import Archive
from libzim.search import Query, Searcher

queries = json.load(sys.stdin)
for z in sys.argv[1:]:
    searcher = Searcher(Archive(z))
    for q in queries:
        s = searcher.search(Query().set_query(q["word"]))
        n = s.getEstimatedMatches()
        paths = list(s.getResults(0, n)) if n else []
        rank = paths.index(q["path"]) if q["path"] in paths else -1
        print(json.dumps({"n": n, "top": paths[:10], "rank": rank}))
