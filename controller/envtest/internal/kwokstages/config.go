package kwokstages

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// StuckLabel is the pod label that keeps a pod from becoming Ready
// (envtest.StuckLabel).
const StuckLabel = "stuck"

// PodReadyStage is the kwok stage that makes a scheduled pod Running and
// Ready; Config adapts it.
const PodReadyStage = "pod-ready"

// Readiness says which scheduled pods kwok marks Running and Ready, and
// when: after Delay plus up to Jitter more, except pods labelled StuckLabel
// and pods with a container whose image is in Unpullable, which stay
// Pending as a kubelet that cannot pull the image would leave them.
type Readiness struct {
	Delay, Jitter time.Duration
	Unpullable    []string
}

// Config returns kwok's configuration: the stages in the YAML files of
// stagesDir (one per file, as the kwok module has them, or several, as
// kwok's release publishes them in stage-fast.yaml), with the pod-ready
// stage adapted to ready.
func Config(stagesDir string, ready Readiness) ([]byte, error) {
	// WalkDir does not follow links, and an assets directory's stages
	// folder may be one.
	root, err := filepath.EvalSymlinks(stagesDir)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out bytes.Buffer
	foundReady := false
	for _, f := range files {
		docs, err := yamlDocuments(f)
		if err != nil {
			return nil, err
		}
		for _, data := range docs {
			doc, err := utilyaml.ToJSON(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			var stage map[string]any
			if err := json.Unmarshal(doc, &stage); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if name, _ := mapAt(stage, "metadata")["name"].(string); name == PodReadyStage {
				if err := adaptPodReady(stage, ready); err != nil {
					return nil, fmt.Errorf("%s: %w", f, err)
				}
				foundReady = true
			}
			// JSON is YAML, and kwok reads YAML documents.
			doc, err = json.Marshal(stage)
			if err != nil {
				return nil, err
			}
			out.WriteString("---\n")
			out.Write(doc)
			out.WriteString("\n")
		}
	}
	if !foundReady {
		return nil, fmt.Errorf("no %q stage in %s", PodReadyStage, stagesDir)
	}
	return out.Bytes(), nil
}

// yamlDocuments splits a YAML file into its documents, leaving out empty
// ones (a leading "---", comments alone).
func yamlDocuments(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !blank(doc) {
			docs = append(docs, doc)
		}
	}
}

// blank says whether doc holds nothing but comments and separators.
func blank(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			return false
		}
	}
	return true
}

// adaptPodReady excludes stuck pods and pods with unpullable images from the
// pod-ready stage and sets its delay.
func adaptPodReady(stage map[string]any, ready Readiness) error {
	spec := mapAt(stage, "spec")
	selector := mapAt(spec, "selector")
	if spec == nil || selector == nil {
		return fmt.Errorf("stage %q has no spec.selector", PodReadyStage)
	}
	exprs, _ := selector["matchExpressions"].([]any)
	exprs = append(exprs, map[string]any{
		"key":      ".metadata.labels." + StuckLabel,
		"operator": "DoesNotExist",
	})
	if len(ready.Unpullable) > 0 {
		// kwok's NotIn fails when any value the query yields, here any
		// container's image, is in the list.
		exprs = append(exprs, map[string]any{
			"key":      ".spec.containers[].image",
			"operator": "NotIn",
			"values":   ready.Unpullable,
		})
	}
	selector["matchExpressions"] = exprs
	if delay, jitter := ready.Delay, ready.Jitter; delay > 0 || jitter > 0 {
		// kwok picks a delay between durationMilliseconds and
		// jitterDurationMilliseconds.
		spec["delay"] = map[string]any{
			"durationMilliseconds":       delay.Milliseconds(),
			"jitterDurationMilliseconds": (delay + jitter).Milliseconds(),
		}
	}
	return nil
}

// mapAt returns m[key] if it is an object, else nil.
func mapAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}
