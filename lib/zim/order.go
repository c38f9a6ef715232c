package zim

import "sort"

// EfficientOrder returns the indices of the user entries in libzim's
// "efficient" order (iterEfficient): grouped by cluster number, redirects
// counted as cluster 0, path order kept inside a group. Reading entries in
// this order decompresses each cluster once.
func (a *Archive) EfficientOrder() ([]uint32, error) {
	a.orderOnce.Do(func() {
		type ent struct{ idx, group uint32 }
		ents := make([]ent, 0, a.endUser-a.startUser)
		a.orderErr = a.Entries(a.startUser, a.endUser, func(e *Entry) error {
			g := e.Cluster
			if e.Kind != KindItem {
				g = 0
			}
			ents = append(ents, ent{e.Index, g})
			return nil
		})
		if a.orderErr != nil {
			return
		}
		sort.SliceStable(ents, func(i, j int) bool { return ents[i].group < ents[j].group })
		a.order = make([]uint32, len(ents))
		for i, e := range ents {
			a.order[i] = e.idx
		}
	})
	return a.order, a.orderErr
}
