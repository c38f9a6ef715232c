package replay

import "net/http"

// replayHandler serves /COLL/TSid_/URL (not yet: 404).
type replayHandler struct{ s *Server }

func (h *replayHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	jsonError(w, http.StatusNotFound, "No Resource Found")
}
