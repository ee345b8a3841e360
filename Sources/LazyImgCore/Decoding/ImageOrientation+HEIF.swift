extension ImageOrientation {
    /// The orientation HEIF's transformative properties make (AVIF's too): `irot`, a
    /// quarter turn anticlockwise per step, followed by `imir`, axis 0 exchanging top and
    /// bottom and 1 left and right, in the order MIAF gives them.
    init(anticlockwiseTurns: Int, mirrorAxis: Int?) {
        var turns = anticlockwiseTurns & 3
        guard let mirrorAxis else {
            self = [.up, .left, .down, .right][turns]
            return
        }
        // Exchanging left and right is exchanging top and bottom after a half turn.
        if mirrorAxis & 1 == 1 { turns = (turns + 2) & 3 }
        self = [.downMirrored, .leftMirrored, .upMirrored, .rightMirrored][turns]
    }
}
