#!/usr/bin/python3
"""Write a corpus ZIM with libzim's own Creator (python3-libzim), full-text
and title indexes on, language "eng", no illustration, no compression:

    xapcorpus.py OUT.zim N SEED WORKERS NQUERIES QUERIES.json

N HTML front articles C/p/NNNNNNN (added in path order) whose words come
from a Zipf-distributed vocabulary of pseudo-English words (stems with
English suffixes, so that the stemmer conflates some), bodies of 5 to 2000
words in a few paragraphs, a title of 1 to 4 words, keywords on one page in
ten, and words in scripts, styles, comments and attributes that must not be
indexed. WORKERS is the Creator's worker count: with 1, libzim gives the
documents their ids in path order (more workers add them in the order
they finish). Writes NQUERIES picks to QUERIES.json (libzim prints to
stdout): [{"word", "path"}, ...], a
random page and a random distinct word of its visible paragraphs."""
import json, math, random, sys
from libzim.writer import Compression, Creator, Hint, Item, StringProvider

out, n, seed, workers, nq, qout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
rnd = random.Random(seed)

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "cl", "dr", "fl", "gr", "pl", "st", "tr", "sh", "ch", "th", "qu", "sp", "sk"]
VOWELS = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "y", "oo"]
CODAS = ["", "", "", "n", "r", "l", "s", "t", "m", "nd", "rk", "st", "ng"]
SUFFIXES = ["s", "ing", "ed", "er", "ly", "ness", "ation", "ful", "es", "ings", "ity", "ment"]


def stem_word():
    return "".join(rnd.choice(ONSETS) + rnd.choice(VOWELS) + rnd.choice(CODAS)
                   for _ in range(rnd.choice([1, 2, 2, 3, 3, 4])))


vocab, seen = [], set()
while len(vocab) < 40000:
    w = stem_word()
    forms = [w] + [w + s for s in rnd.sample(SUFFIXES, rnd.choice([0, 0, 1, 2, 3]))]
    for f in forms:
        if f not in seen and len(f) > 1:
            seen.add(f)
            vocab.append(f)
rnd.shuffle(vocab)
cum, total = [], 0.0
for r in range(len(vocab)):
    total += 1.0 / (r + 1) ** 1.05
    cum.append(total)


def words(k):
    return rnd.choices(vocab, cum_weights=cum, k=k)


class Page(Item):
    def __init__(self, path, title, html):
        super().__init__()
        self.p, self.t, self.h = path, title, html

    def get_path(self):
        return self.p

    def get_title(self):
        return self.t

    def get_mimetype(self):
        return "text/html"

    def get_contentprovider(self):
        return StringProvider(self.h)

    def get_hints(self):
        return {Hint.FRONT_ARTICLE: True}


picks = sorted(rnd.sample(range(n), min(nq, n)))
queries = []
c = Creator(out).config_indexing(True, "eng").config_nbworkers(workers)
c.config_compression(Compression.none)
with c:
    c.set_mainpath("p/0000000")
    c.add_metadata("Title", "xapcorpus")
    c.add_metadata("Language", "eng")
    c.add_metadata("Description", "search comparison corpus")
    pi = 0
    for i in range(n):
        path = "p/%07d" % i
        title = " ".join(w.capitalize() for w in words(rnd.randint(1, 4)))
        length = max(5, min(2000, int(rnd.lognormvariate(math.log(150), 0.9))))
        body = words(length)
        paras, j = [], 0
        while j < len(body):
            k = rnd.randint(20, 120)
            paras.append("<p>" + " ".join(body[j:j + k]) + "</p>")
            j += k
        head = "<title>%s</title>" % title
        if i % 10 == 3:
            head += '<meta name="keywords" content="%s">' % ", ".join(words(3))
        extra = ""
        if i % 7 == 0:
            extra += "<script>var hiddenscriptword = 'zzscriptonly';</script><style>.zzstyleonly{}</style>"
        if i % 11 == 0:
            extra += '<!-- zzcommentonly --><a href="zzattronly.html" title="zzattronly">%s</a>' % " ".join(words(2))
        html = "<html><head>%s</head><body><h1>%s</h1>%s%s</body></html>" % (head, title, "".join(paras), extra)
        c.add_item(Page(path, title, html))
        if pi < len(picks) and picks[pi] == i:
            queries.append({"word": rnd.choice(sorted(set(body))), "path": path})
            pi += 1
with open(qout, "w") as f:
    json.dump(queries, f)
