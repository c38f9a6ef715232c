#!/usr/bin/env python3
"""Writes quirks.warc and quirks.warc.gz: records that exercise the corners
of warcio.js cdx-index (request/response pairing, POST bodies of every
content type, header folding and joining, non-Latin-1 values, odd status
lines, digests, dates). Run from testdata/cdx: python3 gen_quirks.py"""
import gzip, json

def rec(hdrs, body=b""):
    h = "WARC/1.1\r\n" + "".join("%s: %s\r\n" % kv for kv in hdrs)
    h += "Content-Length: %d\r\n\r\n" % len(body)
    return h.encode("utf-8") + body + b"\r\n\r\n"

D = "2021-02-03T04:05:06Z"
n = [0]
def rid():
    n[0] += 1
    return "<urn:uuid:00000000-0000-0000-0000-%012d>" % n[0]

def resp(url, http, date=D, typ="response", extra=()):
    return rec([("WARC-Type", typ), ("WARC-Record-ID", rid()), ("WARC-Target-URI", url),
                ("WARC-Date", date), ("Content-Type", "application/http; msgtype=response"),
                ("WARC-Payload-Digest", "sha1:AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH")] + list(extra), http)

def req(url, method, ctype, body, date=D, extra_http=b""):
    head = ("%s /p HTTP/1.1\r\nHost: example.com\r\n" % method).encode()
    if ctype is not None:
        head += b"Content-Type: " + ctype.encode("utf-8") + b"\r\n"
    head += extra_http + b"\r\n"
    return rec([("WARC-Type", "request"), ("WARC-Record-ID", rid()), ("WARC-Target-URI", url),
                ("WARC-Date", date), ("Content-Type", "application/http; msgtype=request")], head + body)

OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}"
recs = []
recs.append(rec([("WARC-Type", "warcinfo"), ("WARC-Record-ID", rid()), ("WARC-Date", D),
                 ("Content-Type", "application/warc-fields")], b"software: gen_quirks\r\n"))
posts = [
    ("application/x-www-form-urlencoded", b"a=1&b=%20x&c=%E2%82%AC&d=%2F&e=%zz"),
    ("application/x-www-form-urlencoded; charset=UTF-8", b"q=hello+world&r=caf\xc3\xa9"),
    ("application/x-www-form-urlencoded", b"\xef\xbb\xbfbom=1&bad=\xff"),
    ("application/x-www-form-urlencoded", b"ok=%E2%82"),
    ("application/json", json.dumps({"b": 1, "a": [1, 2, {"c": None}], "2": True, "1": False, "s": "x y&z",
                                     "n": 1e21, "f": 0.000001, "g": 1.5e-7, "e": "", "o": {"b": "dup"},
                                     "toString": 1, "k": 12345678901234567890}).encode()),
    ("application/json", b'{"a":1,"a":2,"b":[],"toString":"x","toString":"y"}'),
    ("application/json", b'[1,"two",{"three":3}]'),
    ("application/json", b'"just a string"'),
    ("application/json", b'{not json'),
    ("application/json", b'{"x":"\\ud83d\\ude00 \\ud800"}'),
    ("text/plain", b'{"t":"plain json"}'),
    ("text/plain", b"plain text"),
    ("multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW",
     b"------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"field1\"\r\n\r\nvalue1\r\n"
     b"------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"f2\"\r\n\r\nv 2\r\nline2\r\n"
     b"------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n"),
    ("multipart/form-data", b"no boundary"),
    ("application/octet-stream", bytes(range(256))),
    (None, b"no content type"),
    ("APPLICATION/JSON", b'{"case":"upper"}'),
    ("application/x-www-form-urlencoded", ("x=" + "\u00e9" * 3000).encode("utf-8")),
    ("application/x-www-form-urlencoded", ("y=" + "a" * 4094 + "\U0001F600").encode("utf-8")),
]
for i, (ct, body) in enumerate(posts):
    url = "http://example.com/post%d" % i + ("?x=1" if i % 3 == 0 else "")
    if i % 2 == 0:
        recs.append(resp(url, OK))
        recs.append(req(url, "POST", ct, body))
    else:
        recs.append(req(url, "POST", ct, body))
        recs.append(resp(url, OK))
# other methods
recs.append(req("http://example.com/put", "PUT", "application/json", b'{"p":1}'))
recs.append(resp("http://example.com/put", OK))
recs.append(req("http://example.com/head", "HEAD", None, b""))
recs.append(resp("http://example.com/head", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"))
recs.append(req("http://example.com/get", "GET", None, b""))
recs.append(resp("http://example.com/get", b"HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\n"))
# request not next to its response: not paired
recs.append(req("http://example.com/lonely", "POST", "application/x-www-form-urlencoded", b"a=b"))
recs.append(resp("http://example.com/other", OK))
recs.append(resp("http://example.com/lonely", OK))
# revisit with and without HTTP headers; revisit paired with request
recs.append(rec([("WARC-Type", "revisit"), ("WARC-Target-URI", "http://example.com/rv"), ("WARC-Date", D),
                 ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                 ("WARC-Payload-Digest", "sha1:XYZ")], b""))
recs.append(resp("http://example.com/rv2", b"HTTP/1.1 304 Not Modified\r\nContent-Type: text/css\r\n\r\n", typ="revisit"))
recs.append(req("http://example.com/rv2", "POST", "application/x-www-form-urlencoded", b"r=v"))
# header oddities
recs.append(resp("http://example.com/h1", b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\ncontent-type: text/plain\r\n\r\nx"))
recs.append(resp("http://example.com/h2", b"HTTP/1.0 404\r\nContent-Type : bad/name\r\nX: y\r\n\r\n"))
recs.append(resp("http://example.com/h3", b"HTTP/1.1  200 double space\r\nContent-Type:   \r\n\r\n"))
recs.append(resp("http://example.com/h4", b"HTTP/1.1 0x1F hex\r\nContent-Type: ; charset=x\r\n\r\n"))
recs.append(resp("http://example.com/h5", b"HTTP/1.1 2e2 exp\r\nContent-Type: text/\xe2\x82\xac\r\n\r\n"))
recs.append(resp("http://example.com/h6", b"HTTP/1.1\r\nContent-Type: a/b\r\n\r\n"))
recs.append(resp("http://example.com/h7", b"\r\nHTTP/1.1 200 OK\r\n\r\n"))
recs.append(resp("http://example.com/h8", b"HTTP/1.1 200 OK\r\nContent-Type: text/a\xc3\xa9\r\nContent-Type: x/y\r\n\r\n"))
recs.append(resp("http://example.com/h9", b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
recs.append(resp("http://example.com/h10", b""))
# WARC header oddities
recs.append(rec([("WARC-Type", "response"), ("WARC-Target-URI", "http://example.com/\u65e5\u672c"), ("WARC-Date", "2021-02-03T04:05:06.123456Z"),
                 ("WARC-Payload-Digest", "sha1:ONE:TWO")], OK))
recs.append(rec([("WARC-Type", "response"), ("WARC-Target-URI", "<http://example.com/angle>"), ("WARC-Date", "2021")], OK))
recs.append(rec([("WARC-Type", "response"), ("WARC-Target-URI", "http://example.com/dup"), ("WARC-Target-URI", "http://example.com/dup2"), ("WARC-Date", D), ("WARC-Payload-Digest", "nocolon")], OK))
recs.append(rec([("WARC-Type", "resource"), ("WARC-Target-URI", "dns:example.com"), ("WARC-Date", D), ("Content-Type", "text/dns")], b"20210203040506\nexample.com. 300 IN A 1.2.3.4\n"))
recs.append(rec([("WARC-Type", "resource"), ("WARC-Target-URI", "urn:test:x"), ("WARC-Date", D), ("Content-Type", "application/warc-fields")], b"a: b\r\n"))
recs.append(rec([("WARC-Type", "metadata"), ("WARC-Target-URI", "http://example.com/"), ("WARC-Date", D), ("Content-Type", "application/json")], b"{}"))
recs.append(rec([("WARC-Type", "resource"), ("WARC-Date", D), ("Content-Type", "text/plain")], b"no uri"))
recs.append(rec([("WARC-Type", "conversion"), ("WARC-Target-URI", "http://www2.Example.com:80/A/../b?z=1&a=2"), ("WARC-Date", D)], b"conv"))
recs.append(rec([("WARC-Type", "Response"), ("WARC-Target-URI", "http://example.com/case"), ("WARC-Date", D), ("Content-Type", "x/y")], OK))

# RAW: header bytes that are not UTF-8, a bare-LF HTTP head, a revisit
# without Content-Length digits, and a record whose target repeats the
# previous one with another type.
def rawrec(head, body):
    return b"WARC/1.0\r\n" + head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body + b"\r\n\r\n"
recs.append(rawrec(b"WARC-Type: response\r\nWARC-Target-URI: http://example.com/inv\xff\xe2\x82A\r\nWARC-Date: 2021-02-03T04:05:06Z\r\n",
                   b"HTTP/1.1 200 OK\r\nContent-Type: \xff\xfe\r\n\r\nx"))
recs.append(rawrec(b"WARC-Type: response\r\nWARC-Target-URI: http://example.com/lf\r\nWARC-Date: 2021-02-03T04:05:06Z\r\n",
                   b"HTTP/1.1 200 OK\nContent-Type: text/lf\n\nbody"))
recs.append(rawrec(b"WARC-Type: metadata\r\nWARC-Target-URI: http://example.com/lf\r\nWARC-Date: 2021-02-03T04:05:07Z\r\nContent-Type: text/plain\r\n",
                   b"meta"))
recs.append(rawrec(b"WARC-Type: revisit\r\nWARC-Target-URI: http://example.com/rv3\r\nWARC-Date: 2021-02-03T04:05:06Z\r\n",
                   b"HTTP/1.1 200 OK\r\nContent-Type: text/x\r\n\r\n"))

with open("quirks.warc", "wb") as f:
    f.write(b"".join(recs))
with open("quirks.warc.gz", "wb") as f:
    for r in recs:
        f.write(gzip.compress(r, mtime=0))
