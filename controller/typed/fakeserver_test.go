package typed_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// request is one request the fake API server received.
type request struct {
	Method, Path, ContentType string
	Query                     map[string][]string
	Body                      map[string]any
}

// fakeAPIServer serves one resource over HTTP from memory, as the API
// server does for a custom resource: JSON objects, resourceVersions and
// conflicts, the status subresource (writes to it keep the spec, writes to
// the object keep the status), merge patches, list, and watch with
// watch-list semantics (sendInitialEvents and the initial-events-end
// bookmark). Server-side apply is served as a merge patch that may create:
// the field ownership of a real server is not modelled, only the request.
type fakeAPIServer struct {
	t        *testing.T
	prefix   string // "/apis/<group>/<version>"
	resource string
	kind     string

	mu       sync.Mutex
	rv       int
	objects  map[string]map[string]any // by "namespace/name"
	requests []request
	watches  []request             // watch requests, kept apart from requests
	watchers []chan map[string]any // watch events: {"type": ..., "object": ...}
	srv      *httptest.Server
}

func newFakeAPIServer(t *testing.T, gv schema.GroupVersion, resource, kind string) *fakeAPIServer {
	s := &fakeAPIServer{t: t, prefix: "/apis/" + gv.String(), resource: resource, kind: kind, objects: map[string]map[string]any{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.mu.Lock()
		for _, w := range s.watchers {
			close(w)
		}
		s.mu.Unlock()
		s.srv.Close()
	})
	return s
}

func (s *fakeAPIServer) config() *rest.Config { return &rest.Config{Host: s.srv.URL} }

// takeRequests returns the requests so far, other than watches, and forgets them.
func (s *fakeAPIServer) takeRequests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// route splits a path under the resource into namespace, name and subresource.
func (s *fakeAPIServer) route(path string) (ns, name, sub string, ok bool) {
	rest, found := strings.CutPrefix(path, s.prefix+"/")
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) >= 2 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) == 0 || parts[0] != s.resource || len(parts) > 3 {
		return "", "", "", false
	}
	if len(parts) > 1 {
		name = parts[1]
	}
	if len(parts) > 2 {
		sub = parts[2]
	}
	return ns, name, sub, true
}

func (s *fakeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	ns, name, sub, ok := s.route(r.URL.Path)
	if !ok {
		s.fail(w, apierrors.NewNotFound(schema.GroupResource{Resource: r.URL.Path}, ""))
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if len(raw) > 0 && r.Header.Get("Content-Type") != "application/merge-patch+json" {
		if err := json.Unmarshal(raw, &body); err != nil {
			s.fail(w, apierrors.NewBadRequest(err.Error()))
			return
		}
	}
	if r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" {
		s.mu.Lock()
		s.watches = append(s.watches, request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
		s.mu.Unlock()
		s.watch(w, r, ns)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, request{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Query: r.URL.Query(), Body: body})
	key := ns + "/" + name
	stored := s.objects[key]
	switch {
	case r.Method == http.MethodGet && name == "":
		s.list(w, ns)
	case r.Method == http.MethodGet:
		if stored == nil {
			s.fail(w, apierrors.NewNotFound(s.gr(), name))
			return
		}
		s.reply(w, http.StatusOK, stored)
	case r.Method == http.MethodPost:
		meta := body["metadata"].(map[string]any)
		name = meta["name"].(string)
		if s.objects[ns+"/"+name] != nil {
			s.fail(w, apierrors.NewAlreadyExists(s.gr(), name))
			return
		}
		meta["uid"] = "uid-" + name
		delete(body, "status")
		s.store(ns+"/"+name, body, "ADDED", http.StatusCreated, w)
	case r.Method == http.MethodPut:
		if stored == nil {
			s.fail(w, apierrors.NewNotFound(s.gr(), name))
			return
		}
		if rv, _ := body["metadata"].(map[string]any)["resourceVersion"].(string); rv != stored["metadata"].(map[string]any)["resourceVersion"] {
			s.fail(w, apierrors.NewConflict(s.gr(), name, fmt.Errorf("the object has been modified")))
			return
		}
		if sub == "status" {
			stored = clone(stored)
			stored["status"] = body["status"]
			body = stored
		} else {
			body["status"] = stored["status"]
		}
		s.store(key, body, "MODIFIED", http.StatusOK, w)
	case r.Method == http.MethodPatch:
		event := "MODIFIED"
		if stored == nil {
			if r.Header.Get("Content-Type") != "application/apply-patch+yaml" {
				s.fail(w, apierrors.NewNotFound(s.gr(), name))
				return
			}
			stored, event = map[string]any{"metadata": map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name}}, "ADDED"
		}
		orig, _ := json.Marshal(stored)
		patched, err := jsonpatch.MergePatch(orig, raw)
		if err != nil {
			s.fail(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		var obj map[string]any
		_ = json.Unmarshal(patched, &obj)
		s.store(key, obj, event, http.StatusOK, w)
	case r.Method == http.MethodDelete:
		if stored == nil {
			s.fail(w, apierrors.NewNotFound(s.gr(), name))
			return
		}
		delete(s.objects, key)
		s.rv++
		s.notify("DELETED", stored)
		s.reply(w, http.StatusOK, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	default:
		s.fail(w, apierrors.NewMethodNotSupported(s.gr(), r.Method))
	}
}

func (s *fakeAPIServer) gr() schema.GroupResource {
	return schema.GroupResource{Group: strings.Split(strings.TrimPrefix(s.prefix, "/apis/"), "/")[0], Resource: s.resource}
}

// store saves obj under key with the next resourceVersion, tells watchers
// and replies with it. s.mu is held.
func (s *fakeAPIServer) store(key string, obj map[string]any, event string, code int, w http.ResponseWriter) {
	s.rv++
	obj["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(s.rv)
	obj["apiVersion"], obj["kind"] = strings.TrimPrefix(s.prefix, "/apis/"), s.kind
	s.objects[key] = obj
	s.notify(event, obj)
	s.reply(w, code, obj)
}

func (s *fakeAPIServer) notify(event string, obj map[string]any) {
	for _, ch := range s.watchers {
		ch <- map[string]any{"type": event, "object": clone(obj)}
	}
}

func (s *fakeAPIServer) list(w http.ResponseWriter, ns string) {
	items := []any{}
	for _, key := range slices.Sorted(maps.Keys(s.objects)) {
		if ns == "" || strings.HasPrefix(key, ns+"/") {
			items = append(items, s.objects[key])
		}
	}
	s.reply(w, http.StatusOK, map[string]any{
		"apiVersion": strings.TrimPrefix(s.prefix, "/apis/"), "kind": s.kind + "List",
		"metadata": map[string]any{"resourceVersion": strconv.Itoa(s.rv)}, "items": items,
	})
}

// watch streams events until the client goes away: with sendInitialEvents,
// an ADDED event per stored object and the bookmark that ends them first.
func (s *fakeAPIServer) watch(w http.ResponseWriter, r *http.Request, ns string) {
	events := make(chan map[string]any, 100)
	s.mu.Lock()
	var initial []map[string]any
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		for _, key := range slices.Sorted(maps.Keys(s.objects)) {
			initial = append(initial, map[string]any{"type": "ADDED", "object": clone(s.objects[key])})
		}
		initial = append(initial, map[string]any{"type": "BOOKMARK", "object": map[string]any{
			"apiVersion": strings.TrimPrefix(s.prefix, "/apis/"), "kind": s.kind,
			"metadata": map[string]any{"resourceVersion": strconv.Itoa(s.rv), "annotations": map[string]any{metav1.InitialEventsAnnotationKey: "true"}},
		}})
	}
	s.watchers = append(s.watchers, events)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.watchers = slices.DeleteFunc(s.watchers, func(c chan map[string]any) bool { return c == events })
	}()

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush() // the client's Watch returns once it has the headers
	enc := json.NewEncoder(w)
	send := func(e map[string]any) bool {
		if obj := e["object"].(map[string]any); ns != "" && e["type"] != "BOOKMARK" && obj["metadata"].(map[string]any)["namespace"] != ns {
			return true
		}
		if err := enc.Encode(e); err != nil {
			return false
		}
		w.(http.Flusher).Flush()
		return true
	}
	for _, e := range initial {
		if !send(e) {
			return
		}
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-events:
			if !ok || !send(e) {
				return
			}
		}
	}
}

func (s *fakeAPIServer) reply(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func (s *fakeAPIServer) fail(w http.ResponseWriter, err *apierrors.StatusError) {
	status := err.Status()
	status.APIVersion, status.Kind = "v1", "Status"
	s.reply(w, int(status.Code), status)
}

func clone(obj map[string]any) map[string]any {
	data, _ := json.Marshal(obj)
	var c map[string]any
	_ = json.Unmarshal(data, &c)
	return c
}
