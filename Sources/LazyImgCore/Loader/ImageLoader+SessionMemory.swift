/// A loader's part in its session's memory budget (SessionMemoryBudget): its cache
/// reports every insert and eviction, and after an insert, with the front lock
/// released, the loader has the session evict across loaders down to the budget
/// (`SchedulerLoop.carryOut`).
extension ImageLoader {
    /// At creation: the cache joins the session's budget, if the session has one.
    func joinSessionMemoryBudget() {
        guard let budget = configuration.session?.memoryBudget else { return }
        // Weak: the budget outlives the loader, whose deinit ends the membership.
        let membership = budget.join { [weak self] bound in
            self?.front.withLock { f in
                // Animation frames go before any image.
                if let eviction = f.evictAnimationsForSession() { return eviction }
                let eviction = f.cache.evictOldest(notNewerThan: bound)
                f.dropRemovedAnimations()
                return eviction
            } ?? .gone
        }
        front.withLock { f in f.cache.joinSession(membership) }
    }
}
