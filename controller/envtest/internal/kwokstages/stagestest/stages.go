// Package stagestest holds kwok's stage files as the kwok module has them,
// for the tests of envtest and its binaries that fake kwok's module or
// release.
package stagestest

// PodReady is kwok's pod-ready stage.
const PodReady = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
  next:
    statusTemplate: |
      phase: Running
`

// NodeInit is kwok's node-initialize stage.
const NodeInit = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector: {}
  next: {}
`
