package handler

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// StripManagedFields is a cache.TransformFunc that clears
// metadata.managedFields, which controllers rarely read and which are often
// a large part of an object's size. Use it before an informer starts:
//
//	informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(handler.StripManagedFields))
//
// Objects without metadata, and tombstones, pass through unchanged.
func StripManagedFields(obj any) (any, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		stripped, err := StripManagedFields(tombstone.Obj)
		if err != nil {
			return nil, err
		}
		tombstone.Obj = stripped
		return tombstone, nil
	}
	if o, err := meta.Accessor(obj); err == nil {
		o.SetManagedFields(nil)
	}
	return obj, nil
}

// MetadataInformer returns a metadata-only informer (its objects are
// *metav1.PartialObjectMetadata) for resource in namespace ("" for all),
// indexed by namespace and with managedFields stripped. Use it for objects a
// controller owns but only reads the metadata of: a ReplicaSet controller
// counting Pods by owner needs neither spec nor status, and the cache stays
// small.
//
// The informer is not started; run it with Run or RunWithContext, or create
// it from a metadatainformer.SharedInformerFactory instead when several
// controllers share it.
func MetadataInformer(client metadata.Interface, resource schema.GroupVersionResource, namespace string, resync time.Duration) cache.SharedIndexInformer {
	informer := metadatainformer.NewFilteredMetadataInformer(client, resource, namespace, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
	// SetTransform only fails on a started informer, and this one is new.
	_ = informer.SetTransform(StripManagedFields)
	return informer
}
