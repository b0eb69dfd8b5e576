/// Lead names as files write them, read as the standard leads they are.
///
/// Devices and databases name the same lead many ways: a KardiaMobile 6L
/// writes `EKG I` … `EKG aVF`, PTB writes `i` … `v6`, MIT-BIH calls its
/// modified lead II `MLII`, others `ECG II`, `Lead II`, `Lead-II`. One
/// rule, used wherever a lead is looked up by what it is (the 12-lead
/// printout, its lead-II rhythm strip, `--lead`, the detection lead):
/// case is ignored, a leading `EKG`, `ECG` or `Lead` (with a space, `-`,
/// `_` or `:` after it, or none) is dropped, and what remains is matched
/// against the twelve standard names; MIT-BIH's `MLI`/`MLII`/`MLIII` are
/// the limb leads they modify. Anything else (`EKG1`, `MCL1`, `RESP`)
/// names no standard lead and keeps its own name.
public enum ECGLeadName {
    /// the twelve standard leads, in printout order
    public static let standard = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]

    /// prefixes files put before a lead's name, longest first so "ECG" is not read as "E"
    private static let prefixes = ["lead", "ecg", "ekg"]
    /// MIT-BIH's modified limb leads
    private static let modified = ["mli": "I", "mlii": "II", "mliii": "III"]

    /// The standard lead `name` denotes ("EKG aVF" → "aVF", "mlii" → "II",
    /// "Lead-V5" → "V5"), or nil when it names none ("EKG1", "MCL1", "ABP").
    public static func standard(_ name: String) -> String? {
        var text = Substring(name.trimmingCharacters(in: .whitespaces).lowercased())
        for prefix in prefixes where text.hasPrefix(prefix) {
            let rest = text.dropFirst(prefix.count).drop { " -_:".contains($0) }
            // "ECG" alone, or "EKG1" (a numbered channel), is not a lead name
            if !rest.isEmpty, rest.first.map({ !$0.isNumber }) ?? false { text = rest }
            break
        }
        if let limb = modified[String(text)] { return limb }
        return Self.standard.first { $0.lowercased() == text }
    }

    /// The index of the first of `names` that denotes the standard lead `lead` ("II", "aVR" …).
    public static func index(of lead: String, in names: [String]) -> Int? {
        guard let wanted = standard(lead) else { return nil }
        return names.firstIndex { standard($0) == wanted }
    }
}

import Foundation
