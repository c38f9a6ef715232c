#!/usr/bin/python3
"""Build with Xapian's own library the documents arcport's writer test wrote:
xapbuild.py OUT.glass < docs.json. The JSON holds "docs" (data, terms as
[term, wdf, [positions]], values {slot: value}; strings are bytes as
Latin-1), "metadata" and "notermlist". The database is compacted into a single
file as libzim does (DBCOMPACT_SINGLE_FILE | Compactor.FULL)."""
import json, os, shutil, sys, tempfile, xapian

def raw(s):
    return s.encode("latin-1")

spec = json.load(sys.stdin)
tmp = tempfile.mkdtemp()
try:
    flags = xapian.DB_CREATE_OR_OVERWRITE
    if spec.get("notermlist"):
        flags |= xapian.DB_NO_TERMLIST
    db = xapian.WritableDatabase(os.path.join(tmp, "db"), flags)
    for d in spec["docs"]:
        doc = xapian.Document()
        doc.set_data(raw(d["data"]))
        for term, wdf, positions in d["terms"]:
            doc.add_term(raw(term), wdf)
            for p in positions:
                doc.add_posting(raw(term), p, 0)
        for slot, v in d["values"].items():
            doc.add_value(int(slot), raw(v))
        db.add_document(doc)
    for k, v in spec["metadata"].items():
        db.set_metadata(raw(k), raw(v))
    db.commit()
    db.compact(sys.argv[1], xapian.DBCOMPACT_SINGLE_FILE | xapian.Compactor.FULL)
    db.close()
finally:
    shutil.rmtree(tmp)
