extension ImageLoader {
    /// Gives rows `first ..< first + placeholders.count` their placeholder hashes (nil:
    /// none). Throws `.outOfRange` when they are not all rows of the list, setting
    /// nothing. Renders nothing: a row's placeholder is drawn at its first request.
    public func setPlaceholders(first: Int, _ placeholders: [Placeholder?]) throws(LoaderError) {
        try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            try self.placeholders.set(first: first, placeholders, rowCount: f.rows.count)
            f.placeholdersInUse = self.placeholders.isInUse
        }
    }

    /// The placeholder `request(row:)` answers with beside a ticket: the row's, drawn
    /// at the loader's box, or nil when it has none. The request path's only step for
    /// placeholders, after the scheduler has answered, under no lock of the scheduler's.
    public func placeholder(forRow row: Int) -> DecodedImage? {
        placeholders.image(forRow: row)
    }

    /// The row's placeholder whatever its image's state (for a row whose image failed);
    /// nil when it has none.
    public func lookupPlaceholder(row: Int) throws(LoaderError) -> DecodedImage? {
        try front.withLock { f throws(LoaderError) in try f.checkRow(row) }
        return placeholders.image(forRow: row)
    }
}
