# shellcheck shell=bash
# zimreindex (only when named: minutes): `zimdump index` adding the search
# indexes to an existing ZIM vs zim-tools' zimrecreate, which rewrites the
# whole ZIM with its indexes (the only other way to get them; issue 27,
# target <= 0.5). Input: the bench ZIM of gen_zim (ZIM_ARTICLES articles,
# python3-libzim, zstd) written without an illustration, since zimrecreate
# 3.1.3 fails on a ZIM that has one (fixed upstream in 2024); cached in
# $IN. libzim writes a title index even with indexing off, so
# `zimdump index` runs with --force (replacing it). Both outputs must hold
# the same entries (openzim zimdump info's count), ours has no zimcheck -A
# error the input does not have;
# the note gives both output sizes.

# gen_zim_noillus: path of the cached ZIM_ARTICLES-article ZIM without an
# illustration (testdata/zim/gen/make_zim.py's bench, add_illustration
# left out).
gen_zim_noillus() {
  local zim=$IN/zim-noillus-$ZIM_ARTICLES.zim
  if [ ! -s "$zim" ]; then
    log "generating $zim ($ZIM_ARTICLES articles without illustration, python3-libzim; minutes)"
    /usr/bin/python3 - "$zim.tmp" "$ZIM_ARTICLES" >/dev/null 2>&1 <<'EOF' || return 1
import sys
sys.path.insert(0, "testdata/zim/gen")
import make_zim
class NoIllustration(make_zim.Creator):
    def add_illustration(self, size, data):
        pass
make_zim.Creator = NoIllustration
make_zim.bench(sys.argv[1], int(sys.argv[2]))
EOF
    mv "$zim.tmp" "$zim"
  fi
  echo "$zim"
}

bench_zimreindex() {
  need_bin zimdump || return 1
  [ -x "$OPENZIM" ] || { log "$OPENZIM missing: apt install zim-tools"; return 1; }
  have zimrecreate || { log "zimrecreate missing: apt install zim-tools"; return 1; }
  local zim entries input
  zim=$(gen_zim_noillus) || return 1
  entries=$("$OPENZIM" info "$zim" | sed -n 's/^count-entries: //p')
  input="ZIM $(mib "$(stat -c %s "$zim")") MiB, $entries entries, no illustration"
  local ours="$B/zimdump index -q --force $zim -o $R/zimreindex-ours.zim"
  local peer="rm -f $R/zimreindex-peer.zim; zimrecreate $zim $R/zimreindex-peer.zim"
  bench_pair zimreindex "$ours" zimrecreate "$peer"
  local n1 n2 ok=yes check=pass
  n1=$("$OPENZIM" info "$R/zimreindex-ours.zim" | sed -n 's/^count-entries: //p')
  n2=$("$OPENZIM" info "$R/zimreindex-peer.zim" | sed -n 's/^count-entries: //p')
  [ "$n1" = "$n2" ] && [ "$n1" = "$entries" ] || ok=no
  # the generated input itself lacks metadata zimcheck wants (Creator,
  # Date, ...) and a favicon: ours must have no other error than it
  if have zimcheck; then
    zimcheck -A "$zim" 2>&1 | grep '^\[ERROR\]' | sort >"$R/zimcheck-reindex-in.log"
    zimcheck -A "$R/zimreindex-ours.zim" >"$R/zimcheck-reindex.log" 2>&1
    if ! cmp -s "$R/zimcheck-reindex-in.log" <(grep '^\[ERROR\]' "$R/zimcheck-reindex.log" | sort); then
      ok=no check="errors the input does not have (see $R/zimcheck-reindex.log)"
    else
      check="no error but the input's ($(wc -l <"$R/zimcheck-reindex-in.log") kinds: missing metadata, favicon)"
    fi
  fi
  add_row "zimdump index vs zimrecreate (search indexes added)" "$input" zimreindex "$ours" zimrecreate "$peer" 0.5 "$ok" \
    "entries: input $entries, arcport $n1, zimrecreate $n2; sizes: arcport $(mib "$(stat -c %s "$R/zimreindex-ours.zim")") MiB (clusters copied), zimrecreate $(mib "$(stat -c %s "$R/zimreindex-peer.zim")") MiB (recompressed); zimcheck -A on arcport's: $check"
  rm -f "$R/zimreindex-ours.zim" "$R/zimreindex-peer.zim"
}
