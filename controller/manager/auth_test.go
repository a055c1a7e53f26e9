package manager

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// reviewingAPI is a fake API server that knows two tokens: "reader-token"
// for user "reader", who may get /metrics, and "other-token" for "other",
// who may not. It counts reviews, and fails them while broken is set.
type reviewingAPI struct {
	*fake.Clientset
	mu      sync.Mutex
	reviews map[string]int // "tokenreviews" and "subjectaccessreviews"
	broken  bool
	last    authorizationv1.SubjectAccessReviewSpec
}

func newReviewingAPI() *reviewingAPI {
	api := &reviewingAPI{Clientset: fake.NewClientset(), reviews: map[string]int{}}
	users := map[string]string{"reader-token": "reader", "other-token": "other"}
	api.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		api.mu.Lock()
		defer api.mu.Unlock()
		api.reviews["tokenreviews"]++
		if api.broken {
			return true, nil, errors.New("API server unavailable")
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		if user, ok := users[tr.Spec.Token]; ok {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: user, UID: "uid-" + user, Groups: []string{"system:authenticated"},
				Extra: map[string]authenticationv1.ExtraValue{"scopes": {"s"}},
			}}
		}
		return true, tr, nil
	})
	api.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		api.mu.Lock()
		defer api.mu.Unlock()
		api.reviews["subjectaccessreviews"]++
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		api.last = sar.Spec
		nr := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = sar.Spec.User == "reader" && nr != nil && nr.Path == "/metrics" && nr.Verb == "get"
		return true, sar, nil
	})
	return api
}

func (api *reviewingAPI) count(resource string) int {
	api.mu.Lock()
	defer api.mu.Unlock()
	return api.reviews[resource]
}

func (api *reviewingAPI) setBroken(b bool) {
	api.mu.Lock()
	defer api.mu.Unlock()
	api.broken = b
}

func getWithToken(t *testing.T, url, token string) (int, string) {
	t.Helper()
	return getWithTokenBy(t, http.DefaultClient, url, token)
}

// getWithTokenBy is getWithToken with client c, e.g. one that trusts a
// test's certificate.
func getWithTokenBy(t *testing.T, c *http.Client, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestMetricsAuth(t *testing.T) {
	api := newReviewingAPI()
	m := mustNew(t, Options{Logger: quiet(), Client: api, MetricsAuth: true,
		MetricsAddr: "127.0.0.1:0", HealthProbeAddr: "127.0.0.1:0", PprofAddr: "127.0.0.1:0"})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	metrics := "http://" + m.MetricsAddr() + "/metrics"

	if code, _ := getWithToken(t, metrics, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := getWithToken(t, metrics, "forged"); code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d, want 401", code)
	}
	if code, body := getWithToken(t, metrics, "other-token"); code != http.StatusForbidden || !strings.Contains(body, `"other"`) {
		t.Errorf("user without RBAC: %d %q, want 403 naming the user", code, body)
	}
	code, body := getWithToken(t, metrics, "reader-token")
	if code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("allowed user: %d, want 200 and the metrics", code)
	}
	want := authorizationv1.SubjectAccessReviewSpec{
		User: "reader", UID: "uid-reader", Groups: []string{"system:authenticated"},
		Extra:                 map[string]authorizationv1.ExtraValue{"scopes": {"s"}},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}
	api.mu.Lock()
	last := api.last
	api.mu.Unlock()
	if last.User != want.User || last.UID != want.UID || last.NonResourceAttributes == nil || *last.NonResourceAttributes != *want.NonResourceAttributes ||
		len(last.Groups) != 1 || len(last.Extra["scopes"]) != 1 {
		t.Errorf("SubjectAccessReview %+v, want %+v", last, want)
	}

	// Decisions are cached: the same token asks the API server once.
	tokenReviews, accessReviews := api.count("tokenreviews"), api.count("subjectaccessreviews")
	for range 3 {
		if code, _ := getWithToken(t, metrics, "reader-token"); code != http.StatusOK {
			t.Errorf("cached: %d, want 200", code)
		}
	}
	if code, _ := getWithToken(t, metrics, "other-token"); code != http.StatusForbidden {
		t.Errorf("cached denial: %d, want 403", code)
	}
	if n, k := api.count("tokenreviews"), api.count("subjectaccessreviews"); n != tokenReviews || k != accessReviews {
		t.Errorf("reviews after cached requests: %d and %d, want still %d and %d", n, k, tokenReviews, accessReviews)
	}

	// Probes stay open; pprof is guarded like /metrics (and "reader" may
	// only get /metrics).
	if code, _ := get(t, "http://"+m.HealthProbeAddr()+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz without a token: %d, want 200", code)
	}
	pprof := "http://" + m.PprofAddr() + "/debug/pprof/"
	if code, _ := getWithToken(t, pprof, ""); code != http.StatusUnauthorized {
		t.Errorf("pprof without a token: %d, want 401", code)
	}
	if code, _ := getWithToken(t, pprof, "reader-token"); code != http.StatusForbidden {
		t.Errorf("pprof for a user allowed /metrics only: %d, want 403", code)
	}
}

// A review that fails is an error, not a decision: it is not cached.
func TestMetricsAuthReviewFailure(t *testing.T) {
	api := newReviewingAPI()
	m := mustNew(t, Options{Logger: quiet(), Client: api, MetricsAuth: true, MetricsAddr: "127.0.0.1:0"})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	metrics := "http://" + m.MetricsAddr() + "/metrics"
	api.setBroken(true)
	if code, body := getWithToken(t, metrics, "reader-token"); code != http.StatusInternalServerError || strings.Contains(body, "unavailable") {
		t.Errorf("broken API server: %d %q, want 500 without its error", code, body)
	}
	api.setBroken(false)
	if code, _ := getWithToken(t, metrics, "reader-token"); code != http.StatusOK {
		t.Errorf("after recovery: %d, want 200", code)
	}
}

func TestMetricsAuthNeedsClient(t *testing.T) {
	if _, err := New(Options{MetricsAuth: true}); err == nil || !strings.Contains(err.Error(), "Client") {
		t.Errorf("New(MetricsAuth without Client) = %v, want an error naming Client", err)
	}
}
