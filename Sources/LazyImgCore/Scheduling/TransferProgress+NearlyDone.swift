extension TransferProgress {
    /// A download this close to its end finishes into the cache even when its row
    /// left the window: stopping it saves almost nothing, and a list that comes back
    /// (a catch, a reversal) finds the image ready. Unknown sizes are never nearly done.
    var isNearlyDone: Bool {
        guard let expected, expected > 0 else { return false }
        return received >= expected - expected / 4 || expected - received <= 16 << 10
    }
}
