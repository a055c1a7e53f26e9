package kwokstages

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages/stagestest"
)

func writeStages(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stagesByName decodes Config's output back into objects.
func stagesByName(t *testing.T, config []byte) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, doc := range strings.Split(string(config), "---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		j, err := utilyaml.ToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("output is not YAML: %v\n%s", err, doc)
		}
		var m map[string]any
		if err := json.Unmarshal(j, &m); err != nil {
			t.Fatal(err)
		}
		out[mapAt(m, "metadata")["name"].(string)] = m
	}
	return out
}

func TestKwokConfigExcludesStuckPodsAndSetsDelay(t *testing.T) {
	dir := writeStages(t, map[string]string{
		"node/fast/node-initialize.yaml": stagestest.NodeInit,
		"pod/fast/pod-ready.yaml":        stagestest.PodReady,
	})
	config, err := Config(dir, Readiness{Delay: 1500 * time.Millisecond, Jitter: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	stages := stagesByName(t, config)
	if len(stages) != 2 {
		t.Fatalf("got stages %v, want node-initialize and pod-ready", stages)
	}
	ready := mapAt(stages["pod-ready"], "spec")
	wantExprs := []any{
		map[string]any{"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
		map[string]any{"key": ".metadata.labels.stuck", "operator": "DoesNotExist"},
	}
	if diff := cmp.Diff(wantExprs, mapAt(ready, "selector")["matchExpressions"]); diff != "" {
		t.Errorf("pod-ready matchExpressions (-want +got):\n%s", diff)
	}
	wantDelay := map[string]any{"durationMilliseconds": 1500.0, "jitterDurationMilliseconds": 2000.0}
	if diff := cmp.Diff(wantDelay, ready["delay"]); diff != "" {
		t.Errorf("pod-ready delay (-want +got):\n%s", diff)
	}
	if _, ok := mapAt(stages["node-initialize"], "spec")["delay"]; ok {
		t.Error("node-initialize got a delay; only pod-ready should")
	}
}

func TestKwokConfigExcludesPodsWithUnpullableImages(t *testing.T) {
	dir := writeStages(t, map[string]string{"pod/fast/pod-ready.yaml": stagestest.PodReady})
	config, err := Config(dir, Readiness{Unpullable: []string{"webserver:404", "registry.invalid/app:1"}})
	if err != nil {
		t.Fatal(err)
	}
	exprs, _ := mapAt(mapAt(stagesByName(t, config)["pod-ready"], "spec"), "selector")["matchExpressions"].([]any)
	want := map[string]any{"key": ".spec.containers[].image", "operator": "NotIn",
		"values": []any{"webserver:404", "registry.invalid/app:1"}}
	if len(exprs) == 0 || !cmp.Equal(exprs[len(exprs)-1], want) {
		t.Errorf("pod-ready matchExpressions = %v, want the last %v", exprs, want)
	}
}

func TestKwokConfigWithoutDelayLeavesDelayUnset(t *testing.T) {
	dir := writeStages(t, map[string]string{"pod/fast/pod-ready.yaml": stagestest.PodReady})
	config, err := Config(dir, Readiness{})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := mapAt(stagesByName(t, config)["pod-ready"], "spec")["delay"]; ok {
		t.Errorf("delay = %v, want none", d)
	}
}

func TestKwokConfigErrors(t *testing.T) {
	tests := map[string]map[string]string{
		"no pod-ready stage": {"node/fast/node-initialize.yaml": stagestest.NodeInit},
		"not YAML":           {"pod/fast/pod-ready.yaml": "metadata: [\n"},
		"no selector":        {"pod/fast/pod-ready.yaml": "metadata:\n  name: pod-ready\nspec: {}\n"},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Config(writeStages(t, files), Readiness{}); err == nil {
				t.Error("Config succeeded, want an error")
			}
		})
	}
}

// kwok's release publishes its fast stages as one file of several
// documents (stage-fast.yaml); they read as the module's one-per-file.
func TestKwokConfigReadsSeveralStagesOfOneFile(t *testing.T) {
	dir := writeStages(t, map[string]string{
		"stage-fast.yaml": "---\n# from kustomize build\n---\n" + stagestest.NodeInit + "---\n" + stagestest.PodReady,
	})
	config, err := Config(dir, Readiness{})
	if err != nil {
		t.Fatal(err)
	}
	stages := stagesByName(t, config)
	if len(stages) != 2 || stages["node-initialize"] == nil || stages["pod-ready"] == nil {
		t.Errorf("got stages %v, want node-initialize and pod-ready", stages)
	}
}

// An assets directory's stages folder may be a symbolic link (to a shared
// copy, say): the stages it points at are read.
func TestKwokConfigFollowsLinkedStagesFolder(t *testing.T) {
	dir := writeStages(t, map[string]string{"pod/fast/pod-ready.yaml": stagestest.PodReady})
	link := filepath.Join(t.TempDir(), "stages")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	config, err := Config(link, Readiness{})
	if err != nil {
		t.Fatal(err)
	}
	if stagesByName(t, config)["pod-ready"] == nil {
		t.Errorf("no pod-ready stage read through the link:\n%s", config)
	}
}
