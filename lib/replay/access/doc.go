// Package access holds the access control of waczpack serve, apart from
// its HTTP wiring (lib/replay's guard.go): pywb's access rules and
// embargoes, and the users of --auth-file.
//
// Access rules as pywb 2.10 reads them (pywb/warcserver/access_checker.py):
// .aclj files of lines "SURT - JSON", sorted in reverse order, each rule
// {"access": "allow"|"block"|"exclude"|"allow_ignore_embargo", "user":
// ..., and optionally one of "before"/"after" (a time-stamp) or
// "newer"/"older" ({"years", "months", "weeks", "days"})}. A capture gets
// the rule of the longest SURT prefix of its URL's key ("KEY###" matches
// the key exactly, "*," every URL), a rule naming the request's user
// first; then the collection's embargo. "exclude" drops the capture from
// every answer, "block" keeps it in the CDX API (with "access": "block")
// and answers 451 where it would be replayed (the server's part).
//
//	e, err := access.ParseEmbargo("older=1y6m,access=block") // --embargo
//	a, err := access.ACL("allow", e, "rules.aclj", "rules/")  // --acl, --acl-default
//	rule := a.Rule(key, access.User{Set: true, Name: "staff"})
//	v := a.Decide(rule, "20140126200624", time.Now()) // "" = excluded
//
// The key is the capture's URL keyed as pywb keys a query (Python's surt,
// a final "*" or a first "*." as a match type): lib/replay computes it.
//
// An auth file (--auth-file, LoadAuth, ParseAuth) holds bearer tokens and
// basic user:password pairs, each secret kept as its SHA-256 and compared
// in constant time; Auth.Check names the user a request's Authorization
// header authenticates, Auth.Challenges are the WWW-Authenticate values
// of a 401.
//
// It reads files and knows nothing of the server: only lib/replay and
// the command line (waczpack serve) import it.
package access
