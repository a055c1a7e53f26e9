package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	service := flag.String("service", "", "the conversion webhook's Service, namespace/name")
	path := flag.String("path", "/convert", "the path the webhook server serves the conversion at")
	flag.Parse()
	namespace, name, ok := strings.Cut(*service, "/")
	if !ok || namespace == "" || name == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: crdconversion -service=namespace/name [-path=/convert] file.yaml...")
		os.Exit(2)
	}
	conversion := map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"clientConfig": map[string]any{
				"service": map[string]any{"namespace": namespace, "name": name, "path": *path, "port": 443},
			},
			"conversionReviewVersions": []any{"v1"},
		},
	}
	for _, file := range flag.Args() {
		if err := addConversion(file, conversion); err != nil {
			fmt.Fprintf(os.Stderr, "crdconversion: %s: %v\n", file, err)
			os.Exit(1)
		}
	}
}

// controllerGenHeader begins each document controller-gen writes.
const controllerGenHeader = "---\n"

// addConversion sets the CRD's spec.conversion in file.
func addConversion(file string, conversion map[string]any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	body, ok := bytes.CutPrefix(data, []byte(controllerGenHeader))
	if !ok || bytes.Contains(body, []byte("\n"+controllerGenHeader)) {
		return errors.New("not one document as controller-gen writes it")
	}
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		return err
	}
	var crd map[string]any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // as controller-gen decodes, so that numbers are written the same
	if err := dec.Decode(&crd); err != nil {
		return err
	}
	spec, ok := crd["spec"].(map[string]any)
	if crd["kind"] != "CustomResourceDefinition" || !ok {
		return errors.New("not a CustomResourceDefinition")
	}
	if versions, _ := spec["versions"].([]any); len(versions) < 2 {
		return errors.New("a CRD of one version needs no conversion")
	}
	spec["conversion"] = conversion
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte(controllerGenHeader), out...), 0o644)
}
