package etcdtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// Values returns the values etcd at url holds under key, or, with prefix
// set, under every key that starts with key.
func Values(t testing.TB, url, key string, prefix bool) [][]byte {
	t.Helper()
	req := map[string]string{"key": base64.StdEncoding.EncodeToString([]byte(key))}
	if prefix {
		end := []byte(key)
		end[len(end)-1]++ // the range [key, end) is every key with the prefix
		req["range_end"] = base64.StdEncoding.EncodeToString(end)
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/v3/kv/range", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		KVs []struct {
			Value []byte `json:"value"` // base64 in JSON, as []byte decodes
		} `json:"kvs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("etcd range %q: %s, %v", key, resp.Status, err)
	}
	values := make([][]byte, len(out.KVs))
	for i, kv := range out.KVs {
		values[i] = kv.Value
	}
	return values
}

// APIVersion returns the apiVersion of value, an object stored as JSON.
func APIVersion(t testing.TB, value []byte) string {
	t.Helper()
	var tm runtime.TypeMeta
	if err := json.Unmarshal(value, &tm); err != nil {
		t.Fatalf("a value in etcd is no JSON object: %v: %q", err, value)
	}
	return tm.APIVersion
}

// CountByAPIVersion counts the objects etcd at url holds under the key
// prefix by the apiVersion they are stored at.
func CountByAPIVersion(t testing.TB, url, prefix string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, v := range Values(t, url, prefix, true) {
		counts[APIVersion(t, v)]++
	}
	return counts
}
