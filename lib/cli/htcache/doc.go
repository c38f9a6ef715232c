// Package htcache is the htcache command line (cmd/htcache): info, ls,
// cat, check and export over HTTrack caches read with lib/htcache. It
// follows the arcport CLI conventions (../shared/GUIDE.md): data on stdout
// or -o, one line of reason on stderr, exit 0/1/2. info, ls and cat
// read tolerantly (damage is reported on stderr, exit 0); export leaves
// damaged entries out, one line each on stderr, writes the rest and exits
// 1 (docs/damaged-input.md); check prints one line per problem on stdout
// and exits 1 if there is any.
package htcache
