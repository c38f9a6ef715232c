// Package htcache is the htcache command line (cmd/htcache): info, ls,
// cat and export over HTTrack caches read with lib/htcache. It follows the
// arcport CLI conventions (../shared/GUIDE.md): data on stdout or -o, one
// line of reason on stderr, exit 0/1/2.
package htcache
