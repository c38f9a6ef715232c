#!/usr/bin/python3
"""Dump a Xapian database as JSON with Xapian's own library (python3-xapian):
stats, every term's postings and frequencies, every document's data, values,
term list and positions, value slot statistics and metadata. arcport's
lib/zim/xapian tests compare this with what its reader returns."""
import json, sys, xapian

def b(s):
    return s.decode("latin-1") if isinstance(s, bytes) else s

db = xapian.Database(sys.argv[1])
out = {
    "doccount": db.get_doccount(),
    "lastdocid": db.get_lastdocid(),
    "total_length": db.get_total_length(),
    "doclen_lower": db.get_doclength_lower_bound(),
    "doclen_upper": db.get_doclength_upper_bound(),
    "uuid": b(db.get_uuid()),
    "terms": {},
    "docs": {},
    "valuestats": {},
    "metadata": {},
}
for t in db.allterms():
    term = t.term
    out["terms"][b(term)] = {
        "tf": db.get_termfreq(term),
        "cf": db.get_collection_freq(term),
        "postings": [[p.docid, p.wdf] for p in db.postlist(term)],
    }
# values from the value streams (a database without term lists cannot list
# a document's values), for the slots the tests use
streams = {}
for s in list(range(16)) + [300]:
    for v in db.valuestream(s):
        streams.setdefault(v.docid, {})[str(s)] = b(v.value)
slots = set()
for p in db.postlist(""):
    did = p.docid
    doc = db.get_document(did)
    vals = streams.get(did, {})
    for k in vals:
        slots.add(int(k))
    if any(True for _ in doc.values()) and {str(v.num): b(v.value) for v in doc.values()} != vals:
        raise SystemExit("document %d: values differ between the document and the value streams" % did)
    terms = []
    try:
        for t in doc.termlist():
            terms.append([b(t.term), t.wdf, [x for x in db.positionlist(did, t.term)]])
    except (xapian.FeatureUnavailableError, xapian.DocNotFoundError):
        terms = None  # a database without term lists (DB_NO_TERMLIST, as libzim's)
    out["docs"][str(did)] = {
        "data": b(doc.get_data()),
        "doclen": db.get_doclength(did),
        "values": vals,
        "terms": terms,
    }
for s in sorted(slots):
    out["valuestats"][str(s)] = [db.get_value_freq(s), b(db.get_value_lower_bound(s)), b(db.get_value_upper_bound(s))]
for k in db.metadata_keys():
    out["metadata"][b(k)] = b(db.get_metadata(k))
json.dump(out, sys.stdout, sort_keys=True)
