package main

import (
	"strings"
	"testing"
)

func TestCheckShardsRejectsWhatTheShardedDemoCannotDo(t *testing.T) {
	tests := []struct {
		name    string
		f       flags
		wantErr string
	}{
		{"default demo", flags{namespaces: 6}, ""},
		{"three shards", flags{shards: 3, namespaces: 6}, ""},
		{"negative", flags{shards: -1, namespaces: 6}, "--shards"},
		{"upstream", flags{shards: 3, upstream: true, namespaces: 6}, "--upstream"},
		{"no namespaces", flags{shards: 3, namespaces: 0}, "--namespaces"},
		{"too many namespaces", flags{shards: 3, namespaces: len(shardNamespaces) + 1}, "--namespaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.checkShards()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkShards() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	if featureGates(flags{}) != nil || !featureGates(flags{shards: 3})["ShardedListAndWatch"] {
		t.Error("featureGates: want ShardedListAndWatch with --shards only")
	}
}
