package manager

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/kubernetes"
)

// authCacheTTL is how long a review's decision is reused, as the API
// server's delegated authentication and authorization cache them.
const authCacheTTL = 10 * time.Second

// reviewer guards endpoints with the API server's TokenReview and
// SubjectAccessReview (Options.MetricsAuth). Decisions, allowed or not, are
// cached for authCacheTTL, keyed by the token's hash, verb and path; a
// failed review is not cached.
type reviewer struct {
	client    kubernetes.Interface
	log       logr.Logger
	decisions *cache.Expiring
}

func newReviewer(client kubernetes.Interface, log logr.Logger) *reviewer {
	return &reviewer{client: client, log: log, decisions: cache.NewExpiring()}
}

// decision is the outcome of a review: an HTTP status and, unless OK, why.
type decision struct {
	code   int
	reason string
}

var allowed = decision{code: http.StatusOK}

// wrap serves h to requests the API server allows.
func (a *reviewer) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := a.review(r)
		if d.code != http.StatusOK {
			if d.code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="kubernetes"`)
			}
			http.Error(w, d.reason, d.code)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a *reviewer) review(r *http.Request) decision {
	token, ok := bearerToken(r)
	if !ok {
		return decision{http.StatusUnauthorized, "Unauthorized: a bearer token is required"}
	}
	verb := nonResourceVerb(r.Method)
	key := fmt.Sprintf("%x %s %s", sha256.Sum256([]byte(token)), verb, r.URL.Path)
	if d, ok := a.decisions.Get(key); ok {
		return d.(decision)
	}
	d, cacheable := a.decide(r, token, verb)
	if cacheable {
		a.decisions.Set(key, d, authCacheTTL)
	}
	return d
}

// decide asks the API server who sent token and whether they may use verb
// on the request's path. It reports whether the decision may be cached:
// not when a review failed.
func (a *reviewer) decide(r *http.Request, token, verb string) (decision, bool) {
	tr, err := a.client.AuthenticationV1().TokenReviews().Create(r.Context(),
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		a.log.Error(err, "TokenReview failed", "path", r.URL.Path)
		return decision{http.StatusInternalServerError, "Internal error: the token could not be reviewed"}, false
	}
	if !tr.Status.Authenticated {
		return decision{http.StatusUnauthorized, "Unauthorized: the token is not valid"}, true
	}
	user := tr.Status.User
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar, err := a.client.AuthorizationV1().SubjectAccessReviews().Create(r.Context(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  user.Username,
			UID:                   user.UID,
			Groups:                user.Groups,
			Extra:                 extra,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: r.URL.Path, Verb: verb},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		a.log.Error(err, "SubjectAccessReview failed", "path", r.URL.Path, "user", user.Username)
		return decision{http.StatusInternalServerError, "Internal error: the request could not be authorized"}, false
	}
	if !sar.Status.Allowed {
		return decision{http.StatusForbidden, fmt.Sprintf("Forbidden: user %q may not %s %s", user.Username, verb, r.URL.Path)}, true
	}
	return allowed, true
}

// bearerToken is the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// nonResourceVerb maps an HTTP method to the API server's verb for a
// non-resource URL.
func nonResourceVerb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	default: // GET and HEAD
		return "get"
	}
}
