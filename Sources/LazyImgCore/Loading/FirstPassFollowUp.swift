/// Which waiting requests a download that may have ended at a file's first pass (a
/// JPEG's DC scans, a PNG's first Adam7 pass) answers (`TransferCoalescer`): a whole
/// body, or a failure, answers every one; a body that ends at the first pass only
/// those whose box it serves, as `FirstPass` reads that body. The others download on.
enum FirstPassFollowUp {
    static func serves(_ response: DataResponse, box: DecodeOptions?) -> Bool {
        guard response.endsAtFirstPass, case .success(let body) = response.result else { return true }
        guard let box, case .suffice = FirstPass.examine(body, for: box) else { return false }
        return true
    }
}
