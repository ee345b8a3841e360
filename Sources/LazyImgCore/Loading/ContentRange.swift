/// A 206 answer's `Content-Range: bytes <first>-<last>/<complete>` (RFC 9110
/// §14.4), read strictly: ASCII digits only, no sign, no overflow. Anything else is
/// no range at all, and the answer is not appended to anything.
struct ContentRange {
    let first: Int
    let last: Int
    /// nil for "*" (the server does not say).
    let complete: Int?

    init?(_ value: String?) {
        guard let value else { return nil }
        let text = Array(value.utf8)
        // The unit is case-insensitive; one space separates it from the range.
        guard text.count > 6, URLCheck.hasPrefixIgnoringCase(text[...], "bytes "),
              let dash = text.firstIndex(of: UInt8(ascii: "-")), let slash = text.firstIndex(of: UInt8(ascii: "/")),
              dash < slash,
              let first = Self.number(text[6..<dash]), let last = Self.number(text[(dash + 1)..<slash]), first <= last
        else { return nil }
        let completeText = text[(slash + 1)...]
        if completeText.elementsEqual("*".utf8) {
            complete = nil
        } else {
            guard let complete = Self.number(completeText), last < complete else { return nil }
            self.complete = complete
        }
        self.first = first
        self.last = last
    }

    /// Whether these bytes are exactly the rest of `partial`: from its end to the
    /// end of a body as long as it was announced, or to `end` (exclusive) when the
    /// request asked for bytes up to there.
    func continues(_ partial: PartialBody, upTo end: Int? = nil) -> Bool {
        first == partial.bytes.count && last == (end ?? partial.length) - 1
            && (complete == nil || complete == partial.length)
    }

    /// At most 18 digits, so the value fits an Int whatever they are.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
