import Foundation
import Testing
@testable import ECG

/// The trained models reach the binary as data files (`Sources/CECGModels/models`, assembled by
/// `embed.S`): what the build embedded is each file byte for byte, and `embed.S` names each file's
/// current hash, the line whose change makes a build assemble it again after a retraining.
@Suite struct EmbeddedModelTests {
    static let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/CECGModels").standardizedFileURL

    @Test(arguments: EmbeddedModel.allCases)
    func theBinaryHoldsTheDataFileByteForByte(_ model: EmbeddedModel) throws {
        let file = try Data(contentsOf: Self.models.appendingPathComponent("models/\(model.fileName)"))
        #expect(file.count > 1000, "\(model.fileName): \(file.count) bytes")
        #expect(Array(model.bytes) == Array(file), "\(model.fileName): rebuild, or the embed.S hash is stale")
        _ = try JSONSerialization.jsonObject(with: Data(model.bytes))
    }

    @Test(arguments: EmbeddedModel.allCases)
    func embedListsTheDataFilesCurrentHash(_ model: EmbeddedModel) throws {
        let file = try Data(contentsOf: Self.models.appendingPathComponent("models/\(model.fileName)"))
        let assembly = try String(contentsOf: Self.models.appendingPathComponent("embed.S"), encoding: .utf8)
        let lines = assembly.split(separator: "\n").filter { $0.hasPrefix("// sha256 \(model.fileName) ") }
        #expect(lines == ["// sha256 \(model.fileName) \(SHA256.hex(of: Array(file)))"],
                "retrain with the Tools/ trainer, which writes the hash (Tools/embedded_models.py)")
    }

    @Test func sha256MatchesFIPS180Examples() {
        #expect(SHA256.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}

/// SHA-256 as FIPS 180-4 defines it (§5.1.1 padding, §6.2.2 the compression), for the hash line above.
enum SHA256 {
    static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hex(of message: [UInt8]) -> String {
        var hash: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        padded += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        var w = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for t in 0..<16 {
                w[t] = (0..<4).reduce(0) { $0 << 8 | UInt32(padded[block + 4 * t + $1]) }
            }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7])
            for t in 0..<64 {
                let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ roundConstants[t] &+ w[t]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, h].enumerated() { hash[i] = hash[i] &+ v }
        }
        return hash.map { String($0, radix: 16).leftPadded(to: 8) }.joined()
    }

    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
