package controllertest

import (
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// InstallAPISemantics makes client write and watch objects the way an API
// server does, where the fake clientset on its own does not:
//
//   - Every create, update and patch stores a new metadata.resourceVersion,
//     so an update never looks like a resync to handlers and predicates.
//   - An update (or a patch) whose object carries a resourceVersion other
//     than the stored one fails with a Conflict (409), as optimistic
//     concurrency does on a server. An update with no resourceVersion is
//     unconditional, as the server allows for the built-in types. Objects
//     seeded into the fake without a resourceVersion accept any writer
//     until their first write gives them one ([New] gives seeds one).
//   - A create stores no status (a server resets it; the fake stores an
//     empty one where a server would set a default, such as a Pod's
//     phase). An update or patch of the main resource keeps the stored
//     status; one of the status subresource (UpdateStatus) keeps the
//     stored spec, labels and generation.
//   - metadata.generation is 1 on create for objects with a spec, and goes
//     up by one on each write that changes the spec; writes to status or
//     metadata leave it alone. (A real server also bumps a Deployment's
//     generation on an annotation change; this does not.)
//   - Watchers receive their own copies of objects, as if decoded from the
//     wire. On its own the fake hands a watch started behind the latest
//     resourceVersion the very objects it stores, so an informer transform
//     that edits objects in place (handler.StripManagedFields) races with
//     every later read of the store.
//   - A create of an object that has a resourceVersion fails, with the
//     server's Internal Error (500).
//   - A create gets a metadata.uid unless it carries one: unique in the
//     client and the same from run to run (a server's is random).
//   - A create with metadata.generateName and no name gets a name: the
//     prefix and a suffix that is unique in the client, and the same from
//     run to run (a server's is random).
//   - A delete whose preconditions (uid, resourceVersion) do not match the
//     stored object fails with a Conflict.
//
// Server-side apply, delete collections, and subresources other than
// status (scale, eviction) are left to the fake as they are. There is still
// no defaulting, validation, creationTimestamp, finalizer or garbage
// collection.
//
// Install it before the client is used, once; New installs it on
// Env.Client. Reactors the test prepends afterwards run before these.
func InstallAPISemantics(client *fake.Clientset) {
	newAPIServer().install(&client.Fake, client.Tracker(), nil)
}

// NewClientset is fake.NewClientset(objects...) with InstallAPISemantics
// installed and every seeded object stored with a resourceVersion, as a real
// server would have stored it (objects is not modified). Prefer it to
// installing the semantics on a seeded fake: a seed without a
// resourceVersion accepts a stale write until its first update, which hides
// exactly the races the semantics are there to show.
func NewClientset(objects ...runtime.Object) *fake.Clientset {
	server := newAPIServer()
	client := fake.NewClientset(server.seed(objects)...)
	server.install(&client.Fake, client.Tracker(), nil)
	return client
}

// apiServer holds the resourceVersion counter shared by every resource, as
// an API server's storage does.
type apiServer struct {
	mu    sync.Mutex
	last  int64 // the highest resourceVersion handed out or seen
	names int64 // generated names handed out
	uids  int64 // UIDs handed out
}

func newAPIServer() *apiServer { return &apiServer{} }

// install puts the server's rules in front of tracker on client, the fake
// whose reactors serve tracker (a fake clientset's, or a TypedClient's).
// With fields (a TypedClient's), every write records its managed fields
// and server-side apply is served; without, apply is left to the fake.
func (s *apiServer) install(client *clienttesting.Fake, tracker clienttesting.ObjectTracker, fields *fieldManagers) {
	client.PrependReactor("*", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		return s.react(tracker, fields, action)
	})
	client.PrependWatchReactor("*", watchReactor(tracker, func(w watch.Interface) watch.Interface {
		return newCopyingWatch(w)
	}))
}

// watchReactor answers a watch action from tracker, through wrap.
func watchReactor(tracker clienttesting.ObjectTracker, wrap func(watch.Interface) watch.Interface) clienttesting.WatchReactionFunc {
	return func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		return true, wrap(w), nil
	}
}

// observe raises the counter to a resourceVersion found on an object, so
// that the next one handed out is newer. Versions that are not integers
// (set by hand in a test) are ignored.
func (s *apiServer) observe(rv string) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.last = max(s.last, n)
	s.mu.Unlock()
}

// next returns a resourceVersion newer than every one handed out or seen.
func (s *apiServer) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	return strconv.FormatInt(s.last, 10)
}

// uid returns a new UID for a created object, shaped like a server's.
func (s *apiServer) uid() types.UID {
	s.mu.Lock()
	s.uids++
	n := s.uids
	s.mu.Unlock()
	return types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n))
}

// nameAlphabet is the characters of generated name suffixes: the API
// server's, which avoid vowels (no words) and look-alikes.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// nameSuffix returns the next five-character suffix for generateName.
func (s *apiServer) nameSuffix() string {
	s.mu.Lock()
	n := s.names
	s.names++
	s.mu.Unlock()
	suffix := make([]byte, 5)
	for i := len(suffix) - 1; i >= 0; i-- {
		suffix[i] = nameAlphabet[n%int64(len(nameAlphabet))]
		n /= int64(len(nameAlphabet))
	}
	return string(suffix)
}

// react serves creates, updates and patches (and, with fields, applies)
// of main resources and of the status subresource through the fake's own
// object reaction, on a tracker that applies the server's rules before
// storing. Everything else falls through to the fake's reactors.
func (s *apiServer) react(tracker clienttesting.ObjectTracker, fields *fieldManagers, action clienttesting.Action) (bool, runtime.Object, error) {
	switch action.GetVerb() {
	case "create", "update", "patch":
	case "delete":
		if err := checkPreconditions(tracker, action); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	default:
		return false, nil, nil
	}
	sub := action.GetSubresource()
	if sub != "" && sub != "status" {
		return false, nil, nil
	}
	if p, ok := action.(clienttesting.PatchActionImpl); ok && p.GetPatchType() == types.ApplyPatchType && fields == nil {
		return false, nil, nil
	}
	w := &serverWrites{ObjectTracker: tracker, server: s, status: sub == "status", fields: fields}
	return clienttesting.ObjectReaction(w)(action)
}

// seed returns the objects to store before the client starts, each with a
// resourceVersion as if the server had stored it: objects without one get
// a copy with a new one, newer than every one already set.
func (s *apiServer) seed(objects []runtime.Object) []runtime.Object {
	for _, obj := range objects {
		if m, err := meta.Accessor(obj); err == nil {
			s.observe(m.GetResourceVersion())
		}
	}
	seeded := make([]runtime.Object, len(objects))
	for i, obj := range objects {
		seeded[i] = obj
		if m, err := meta.Accessor(obj); err != nil || m.GetResourceVersion() != "" {
			continue
		}
		versioned := obj.DeepCopyObject()
		if m, err := meta.Accessor(versioned); err == nil {
			m.SetResourceVersion(s.next())
			seeded[i] = versioned
		}
	}
	return seeded
}
