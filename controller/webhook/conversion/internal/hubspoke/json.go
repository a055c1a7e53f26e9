package hubspoke

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
)

// Header is what the webhook reads of an object before converting it.
type Header struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   json.RawMessage `json:"metadata"`
	// Namespace and Name are the metadata's, to name the object in errors.
	Namespace, Name string `json:"-"`
}

// GroupVersionKind parses the header's apiVersion and kind.
func (h Header) GroupVersionKind() (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(h.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(h.Kind), nil
}

// ParseHeader reads raw's apiVersion, kind and metadata. It fails if raw is
// not a JSON object, or if they are not of the types Kubernetes gives them.
func ParseHeader(raw []byte) (Header, error) {
	var fields map[string]json.RawMessage
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &fields); err != nil || fields == nil {
		return Header{}, errors.New("it is not a JSON object")
	}
	var h Header
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &h); err != nil {
		return Header{}, err
	}
	if len(h.Metadata) > 0 && string(h.Metadata) != "null" {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(h.Metadata, &meta); err != nil {
			return Header{}, errors.New("its metadata is not a JSON object")
		}
		var id struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(h.Metadata, &id); err != nil {
			return Header{}, fmt.Errorf("its metadata: %w", err)
		}
		h.Namespace, h.Name = id.Namespace, id.Name
	}
	return h, nil
}

// BadObjectError is an object that does not decode into its version's type.
type BadObjectError struct{ Err error }

func (e *BadObjectError) Error() string { return e.Err.Error() }
func (e *BadObjectError) Unwrap() error { return e.Err }

// ConvertJSON converts raw, an object whose header h names version from,
// to version to, as the API server expects a conversion webhook to: raw is
// decoded into from's type (case-sensitively; fields the type does not
// know are dropped, as the API server prunes them), converted through the
// hub and encoded; apiVersion becomes group/to, kind stays, and metadata
// stays as raw has it, but for labels and annotations, which the
// conversion may change (to carry a field a version cannot hold). A panic
// in a conversion function, or in a type's own JSON methods, is returned
// as a *PanicError.
func (k *Kind) ConvertJSON(ctx context.Context, raw []byte, h Header, to string) (converted []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			converted, err = nil, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	gvk, err := h.GroupVersionKind()
	if err != nil {
		return nil, &BadObjectError{err}
	}
	from := gvk.Version
	if k.Versions[from] == nil || k.Versions[to] == nil {
		return nil, fmt.Errorf("%s has no version %q", k.GroupKind, firstUnknown(k, from, to))
	}
	if from == to {
		return raw, nil
	}
	obj := k.Versions[from].New()
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, &BadObjectError{fmt.Errorf("decoding it as %s: %w", from, err)}
	}
	out, err := k.Convert(ctx, obj, from, to)
	if err != nil {
		return nil, err
	}
	encoded, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding it as %s: %w", to, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("the %s type does not encode as a JSON object", to)
	}
	if converted, ok := fields["metadata"]; ok {
		meta, err := restoreMetadata(h.Metadata, converted)
		if err != nil {
			return nil, err
		}
		if len(meta) == 0 {
			delete(fields, "metadata")
		} else {
			fields["metadata"] = meta
		}
	} else if len(h.Metadata) > 0 {
		fields["metadata"] = h.Metadata
	}
	fields["apiVersion"], _ = json.Marshal(schema.GroupVersion{Group: k.GroupKind.Group, Version: to}.String())
	fields["kind"], _ = json.Marshal(h.Kind)
	return json.Marshal(fields)
}

// restoreMetadata is original with the labels and annotations of
// converted, as the API server keeps them (restoreObjectMeta in
// apiextensions-apiserver): a conversion may change those two and nothing
// else of the metadata. Unchanged, original is returned as it is.
func restoreMetadata(original, converted json.RawMessage) (json.RawMessage, error) {
	var meta, conv map[string]json.RawMessage
	if len(original) > 0 {
		if err := json.Unmarshal(original, &meta); err != nil {
			return nil, fmt.Errorf("the metadata is not a JSON object: %w", err)
		}
	}
	if err := json.Unmarshal(converted, &conv); err != nil {
		return nil, fmt.Errorf("the converted metadata is not a JSON object: %w", err)
	}
	changed := false
	for _, key := range []string{"labels", "annotations"} {
		var before, after map[string]string
		// The original's were decoded into the type's metadata already;
		// one that is no string map was not, and is replaced.
		if json.Unmarshal(meta[key], &before) != nil {
			before = nil
		}
		if err := json.Unmarshal(conv[key], &after); err != nil && conv[key] != nil {
			return nil, fmt.Errorf("the converted metadata.%s: %w", key, err)
		}
		if maps.Equal(before, after) {
			continue
		}
		changed = true
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		if len(after) == 0 {
			delete(meta, key)
		} else {
			meta[key] = conv[key]
		}
	}
	if !changed {
		return original, nil
	}
	return json.Marshal(meta)
}
