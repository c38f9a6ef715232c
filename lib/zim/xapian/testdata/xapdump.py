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
slots = set()
for p in db.postlist(""):
    did = p.docid
    doc = db.get_document(did)
    vals = {}
    for v in doc.values():
        vals[str(v.num)] = b(v.value)
        slots.add(v.num)
    terms = []
    for t in doc.termlist():
        terms.append([b(t.term), t.wdf, [x for x in db.positionlist(did, t.term)]])
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
