/// Which waiting requests a download that may have ended at a JPEG's DC scans
/// answers (`TransferCoalescer`): a whole body, or a failure, answers every one; a
/// body that ends at the DC scans only those whose box the DC scans serve, as
/// `JPEGDCScans` reads that body. The others download on.
enum FirstPassFollowUp {
    static func serves(_ response: DataResponse, box: DecodeOptions?) -> Bool {
        guard response.endsAtFirstPass, case .success(let body) = response.result else { return true }
        guard let box, case .suffice = JPEGDCScans.examine(body, for: box) else { return false }
        return true
    }
}
