#!/usr/bin/python3
"""Stem words with Xapian's own stemmer (python3-xapian): xapstem.py LANG
[< words.json]. The words are every distinct lowercase word of this
Python's standard library sources, a few that reach the English stemmer's
special cases, and the JSON list on standard input if one is given; prints
one JSON object {word: stem}."""
import glob, json, os, re, sys, xapian

words = set()
lib = os.path.dirname(os.__file__)
for path in glob.glob(os.path.join(lib, "*.py")):
    with open(path, encoding="utf-8", errors="ignore") as f:
        words.update(w.lower() for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", f.read()))
words.update(["skis", "skies", "dying", "ugly", "news", "inning", "succeeded", "generously",
              "communication", "arsenal", "'tis", "dog's", "dogs'", "yelling", "sayings",
              "cried", "ties", "hopping", "hoped", "conflated", "troubled", "sized",
              "controllable", "fluently", "ly", "by", "yy", "aye", "é", "café", "naïve", "façade"])
if not sys.stdin.isatty():
    data = sys.stdin.read()
    if data.strip():
        words.update(json.loads(data) or [])
st = xapian.Stem(sys.argv[1])
json.dump({w: st(w.encode("utf-8")).decode("utf-8") for w in words}, sys.stdout, ensure_ascii=False)
