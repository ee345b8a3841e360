/// Swift callers with URLs as text (tests, tools): each becomes its UTF-8 bytes.
extension ImageLoader {
    public func setItems(_ urls: [String?]) throws(LoaderError) {
        try setItems(urls.map { $0.map(ImageURL.init) })
    }

    public func appendItems(_ urls: [String?]) throws(LoaderError) {
        try appendItems(urls.map { $0.map(ImageURL.init) })
    }

    public func lookup(url: String) throws(LoaderError) -> DecodedImage? {
        try lookup(url: ImageURL(url))
    }
}
