// Package informer provides a lean cache.SharedIndexInformer for
// controllers whose event handlers only enqueue keys.
//
// client-go's shared informer carries each watch event through a DeltaFIFO,
// a processing goroutine and, for every handler, a buffer with two more
// goroutines. That isolation lets a slow handler fall behind without
// stalling the watch, and it costs several goroutine hand-offs per event: on
// a busy controller the informer, not the controller, is most of the CPU
// spent per event.
//
// [Informer] keeps client-go's Reflector (list, watch, relist, backoff,
// bookmarks, watch-list streaming) and calls the handlers on the reflector's
// goroutine as each event is applied to the store. It satisfies
// cache.SharedIndexInformer, so listers, the controller package's Watch,
// controller-runtime's source.Informer and a SharedInformerFactory (through
// InformerFor) take it as is.
//
// Its store answers every call as client-go's thread-safe store does (a
// test compares the two call for call), but files objects by namespace: the
// namespace index every lister uses is then the filing itself, and an event
// costs one map write instead of two plus an allocation.
//
// The events handlers see are client-go's, decision for decision: OnAdd for
// a new object (isInInitialList for the informer's first list, and for every
// existing object when a handler joins late); OnUpdate for a changed object,
// for every listed object on a relist, and with the same object on both
// sides on a periodic resync; OnDelete with the last known object, or a
// cache.DeletedFinalStateUnknown when a relist finds the object gone.
//
// The price of the shortcut is the contract on handlers: they run one at a
// time, in event order, while the informer waits. A handler must return
// quickly (adding keys to a work queue is the intended use) and must not add
// or remove handlers of the same informer. Handlers that do slow work belong
// on client-go's informer.
package informer
