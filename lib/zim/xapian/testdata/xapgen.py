#!/usr/bin/python3
"""Build a glass database with Xapian's own library (python3-xapian) and
compact it into a single file, as libzim does: xapgen.py OUT.glass NDOCS SEED.
Documents get stemmed text with positions (TermGenerator, English), data
"C/page<N>.html", a title in value slot 0 and a word count in slot 1
(sortable_serialise), some long data (compressed, split over blocks) and
metadata. arcport's lib/zim/xapian tests read the result."""
import os, random, shutil, sys, tempfile, xapian

out, ndocs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
words = ["garden", "gardening", "roses", "rose", "the", "a", "of", "café", "été",
         "quick", "brown", "fox", "jumps", "lazy", "dog", "xapian", "glass",
         "kiwix", "zim", "search", "index", "bloom", "flower", "tree", "water"]
words += ["w%d" % i for i in range(300)]
tmp = tempfile.mkdtemp()
try:
    d = os.path.join(tmp, "db")
    db = xapian.WritableDatabase(d, xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("en"))
    for i in range(ndocs):
        n = rnd.randint(1, 60)
        text = " ".join(rnd.choice(words) for _ in range(n))
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(text)
        if i % 7 == 0:
            tg.index_text("common " * rnd.randint(1, 5))
        data = "C/page%d.html" % i
        if i % 50 == 3:
            data += "/" + "".join(rnd.choice("abcdefgh") for _ in range(rnd.randint(20, 20000)))
        doc.set_data(data)
        doc.add_value(0, "Title %d %s" % (i, rnd.choice(words)))
        doc.add_value(1, xapian.sortable_serialise(n))
        if i % 3 == 0:
            doc.add_value(5, "x" * (i % 11 + 1))
        db.add_document(doc)
    db.set_metadata("language", "en")
    db.set_metadata("valuesmap", "title:0;wordcount:1")
    db.commit()
    db.close()
    r = os.system("xapian-compact --single-file -q %s %s >/dev/null" % (d, out))
    sys.exit(r != 0)
finally:
    shutil.rmtree(tmp)
