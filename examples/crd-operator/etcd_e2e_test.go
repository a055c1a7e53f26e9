//go:build e2e

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// storedIn counts the objects under the etcd key prefix by the apiVersion
// they are stored at, read from etcd itself through its JSON gateway
// (custom resources are stored as JSON), as controller/storagemigration's
// e2e test does.
func storedIn(t *testing.T, env *envtest.Environment, prefix string) map[string]int {
	t.Helper()
	end := []byte(prefix)
	end[len(end)-1]++
	body, _ := json.Marshal(map[string]string{
		"key":       base64.StdEncoding.EncodeToString([]byte(prefix)),
		"range_end": base64.StdEncoding.EncodeToString(end),
	})
	resp, err := http.Post(env.EtcdURL()+"/v3/kv/range", "application/json", bytes.NewReader(body))
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
		t.Fatalf("etcd range: %s, %v", resp.Status, err)
	}
	counts := map[string]int{}
	for _, kv := range out.KVs {
		var tm runtime.TypeMeta
		if err := json.Unmarshal(kv.Value, &tm); err != nil {
			t.Fatalf("a value in etcd is no JSON object: %v: %q", err, kv.Value)
		}
		counts[tm.APIVersion]++
	}
	return counts
}
