/// A loader's part in its session's memory budget (SessionMemoryBudget): its cache
/// reports every insert and eviction, and after an insert, with the state lock
/// released, the loader has the session evict across loaders down to the budget.
extension ImageLoader {
    /// At creation: the cache joins the session's budget, if the session has one.
    func joinSessionMemoryBudget() {
        guard let budget = configuration.session?.memoryBudget else { return }
        // Weak: the budget outlives the loader, whose deinit ends the membership.
        let membership = budget.join { [weak self] bound in
            self?.state.withLock { s in
                // Animation frames go before any image.
                if let eviction = self?._evictAnimationsForSession(in: &s) { return eviction }
                let eviction = s.cache.evictOldest(notNewerThan: bound)
                self?._dropRemovedAnimations(in: &s)
                return eviction
            } ?? .gone
        }
        state.withLock { s in s.cache.joinSession(membership) }
    }

    /// After a cache insert, without the state lock (the session may evict from this
    /// loader or another).
    func trimSessionMemory() {
        configuration.session?.memoryBudget?.trim()
    }
}
