import Testing
@testable import ECG

/// Lead names as real files write them (KardiaMobile 6L EDF, PTB, MIT-BIH,
/// and the spellings issue 36 lists) read as the standard leads.
@Suite struct ECGLeadNameTests {
    @Test(arguments: [
        ("EKG I", "I"), ("EKG II", "II"), ("EKG III", "III"), ("EKG aVR", "aVR"), ("EKG aVL", "aVL"),
        ("EKG aVF", "aVF"), ("ECG II", "II"), ("Lead II", "II"), ("Lead-II", "II"), ("lead_v5", "V5"),
        ("II", "II"), ("ii", "II"), ("MLII", "II"), ("mli", "I"), ("V5", "V5"), ("v6", "V6"), ("avr", "aVR"),
        ("AVF", "aVF"), (" EKG:V1 ", "V1"),
    ])
    func aLeadIsReadAsTheStandardLeadItNames(name: String, lead: String) {
        #expect(ECGLeadName.standard(name) == lead, "\(name)")
    }

    @Test(arguments: ["EKG1", "ECG", "EKG", "MCL1", "RESP", "ABP", "V7", "Lead", "vx", "IIII"])
    func otherNamesStayThemselves(name: String) {
        #expect(ECGLeadName.standard(name) == nil, "\(name)")
    }

    /// a 6-lead device's names, as KardiaMobile 6L writes them in its EDF
    static let kardia = ["EKG I", "EKG II", "EKG III", "EKG aVR", "EKG aVL", "EKG aVF"]

    @Test func lookingUpByStandardNameFindsTheFilesSpelling() throws {
        #expect(ECGLeadName.index(of: "II", in: Self.kardia) == 1)
        #expect(ECGLeadName.index(of: "aVF", in: Self.kardia) == 5)
        #expect(ECGLeadName.index(of: "V1", in: Self.kardia) == nil)
        #expect(ECGLeadName.index(of: "II", in: ["V5", "MLII"]) == 1)
        // --lead: the exact label first, then the lead it names
        #expect(try LeadSelector("II").resolve(in: Self.kardia, file: "kardia.edf") == 1)
        #expect(try LeadSelector("EKG III").resolve(in: Self.kardia, file: "kardia.edf") == 2)
        #expect(throws: ECGError.self) { try LeadSelector("V2").resolve(in: Self.kardia, file: "kardia.edf") }
    }

    @Test func theDefaultLeadOfAFileIsItsFirstECGLead() {
        #expect(ECGRecording.defaultLead(labels: ["EEG Fpz-Cz", "Lead II", "Resp"]) == 1)
        #expect(ECGRecording.defaultLead(labels: ["Pleth", "ii"]) == 1)
    }
}
