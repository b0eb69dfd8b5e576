import Foundation
import Testing
@testable import ECG
import Signals

/// `ModelJSONReader` reads the models' JSON as `JSONDecoder` does: every value of every embedded model
/// bit for bit, numbers in JSON's every form, and it gives up (so `JSONDecoder` decides) on what it does
/// not handle itself.
@Suite struct ModelJSONReaderTests {
    static func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }
    static func bits(_ values: [Double?]) -> [UInt64?] { values.map { $0?.bitPattern } }

    @Test(arguments: [EmbeddedModel.verdictTrees, .ventricularBeat, .rrAF])
    func embeddedTreesReadAsJSONDecoderReadsThem(_ model: EmbeddedModel) throws {
        let reference = try GradientBoostedTrees.decodeWithFoundation(Data(model.bytes))
        let file = try #require(ModelJSONReader.read(model.bytes, GradientBoostedTrees.ModelFile.read),
                                "\(model.fileName): the reader gave up")
        #expect(file.format == reference.format)
        #expect(file.featureNames == reference.featureNames)
        #expect(file.classNames == reference.classNames)
        try #require(file.trees.count == reference.trees.count)
        for (tree, expected) in zip(file.trees, reference.trees) {
            #expect(tree.feature == expected.feature && tree.defaultLeft == expected.defaultLeft
                    && tree.missingType == expected.missingType && tree.left == expected.left && tree.right == expected.right)
            #expect(Self.bits(tree.threshold) == Self.bits(expected.threshold))
            #expect(Self.bits(tree.leaf) == Self.bits(expected.leaf))
        }
        let vectors = try #require(file.testVectors), expectedVectors = try #require(reference.testVectors)
        try #require(vectors.count == expectedVectors.count && !vectors.isEmpty)
        for (vector, expected) in zip(vectors, expectedVectors) {
            #expect(vector.source == expected.source)
            #expect(Self.bits(vector.features) == Self.bits(expected.features))
            #expect(Self.bits(vector.probabilities) == Self.bits(expected.probabilities))
        }
    }

    @Test func embeddedNetworkReadsAsJSONDecoderReadsIt() throws {
        let model = EmbeddedModel.verdictNetwork
        let reference = try QuantileNetwork.decodeWithFoundation(Data(model.bytes))
        let file = try #require(ModelJSONReader.read(model.bytes, QuantileNetwork.ModelFile.read), "the reader gave up")
        #expect(file.format == reference.format)
        #expect(file.featureNames == reference.featureNames && file.classNames == reference.classNames)
        #expect(Self.bits(file.medians) == Self.bits(reference.medians))
        #expect(Self.bits(file.references) == Self.bits(reference.references))
        #expect(file.quantiles.map(Self.bits) == reference.quantiles.map(Self.bits))
        #expect(file.missingIndicators == reference.missingIndicators)
        for (layer, expected) in [(file.hidden, reference.hidden), (file.output, reference.output)] {
            #expect(Self.bits(layer.biases) == Self.bits(expected.biases))
            #expect(layer.weights.map(Self.bits) == expected.weights.map(Self.bits))
        }
        let vectors = try #require(file.testVectors), expectedVectors = try #require(reference.testVectors)
        try #require(vectors.count == expectedVectors.count && !vectors.isEmpty)
        for (vector, expected) in zip(vectors, expectedVectors) {
            #expect(vector.source == expected.source)
            #expect(Self.bits(vector.features) == Self.bits(expected.features))
            #expect(Self.bits(vector.inputs) == Self.bits(expected.inputs))
            #expect(Self.bits(vector.probabilities) == Self.bits(expected.probabilities))
        }
    }

    /// numbers in JSON's forms, each read to the same bits as JSONDecoder reads it
    @Test func numbersInEveryFormReadAsJSONDecoderReadsThem() throws {
        let text = """
             [0, -0, 1, -1, 0.5, -0.0, 1e5, 1E5, 1e+5, 1e-5, 1.5E-3, 123456789, 0.1, 0.30000000000000004,
              1.7976931348623157e308, 2.2250738585072014e-308, 9007199254740993, 0.1000000000000000055511151231257827,
              -4.940656458412465e-300, 3.141592653589793238462643383279, 100000000000000000000000, 7.0e-10 ]
            """
        let reference = try JSONDecoder().decode([Double].self, from: Data(text.utf8))
        let read = try #require(ModelJSONReader.read(text) { reader in try reader.doubles() })
        #expect(Self.bits(read) == Self.bits(reference))
        let optional = try #require(ModelJSONReader.read("[1.25, null, -3]") { reader in try reader.optionalDoubles() })
        #expect(Self.bits(optional) == Self.bits([1.25, nil, -3]))
        #expect(ModelJSONReader.read(" [0, -7, 42, 123456789012345678] ") { reader in try reader.ints() } == [0, -7, 42, 123456789012345678])
    }

    /// the Float80 path gives strtod's double for every number it takes, and leaves the rest to
    /// strtod: random decimals of up to 20 significant digits with exponents around its limits,
    /// midpoints between doubles, and numbers near the ends of its range
    @Test func quickNumbersReadAsStrtodReadsThem() {
        var random = SeededRandom(seed: 61)
        var texts = ["9007199254740993", "9007199254740995", "0.1", "-0.0", "0.000000000000000000000000001",
                     "1e27", "1e28", "1e-27", "1e-28", "123456789012345678901", "4.9406564584124654e-324",
                     "8.98846567431158e307", "2.5e-300", "0.30000000000000004", "1.0000000000000002"]
        for _ in 0..<20_000 {
            // leading zeros too (JSON forbids them, numberText refuses them; the conversion does not mind)
            let digits = Int(random.next() % 20) + 1
            var text = random.next() % 2 == 0 ? "-" : ""
            for position in 0..<digits {
                text += String(random.next() % 10)
                if position == Int(random.next() % UInt64(digits)) && !text.contains(".") && position < digits - 1 { text += "." }
            }
            if random.next() % 2 == 0 { text += "e" + String(Int(random.next() % 70) - 35) }
            texts.append(text)
        }
        // midpoints: 2⁵³ + 2k + 1 scaled by powers of ten the fast path takes
        for k in 0..<200 { texts.append(String(9_007_199_254_740_993 + 2 * k) + "e" + String(k % 20 - 10)) }
        var quick = 0
        for text in texts {
            let bytes = Array(text.utf8)
            let reference = strtod(text, nil)
            let read = bytes.withUnsafeBufferPointer { ModelJSONReader.quickDouble($0, 0..<bytes.count) }
            if let read {
                quick += 1
                #expect(read.bitPattern == reference.bitPattern, "\(text): \(read) against strtod's \(reference)")
            }
        }
        #if arch(x86_64) || arch(i386)
        // most take the quick path, not all
        #expect(quick > texts.count / 2 && quick < texts.count, "\(quick) of \(texts.count)")
        #else
        #expect(quick == 0) // no Float80: strtod reads them all
        #endif
    }

    /// what the reader leaves to JSONDecoder: it gives up
    @Test(arguments: [
        #"["a\"b"]"#,            // an escape in a string
        #"[1, 2,]"#,            // a trailing comma
        #"[01]"#,               // a leading zero
        #"[1.]"#,               // a fraction without digits
        #"[.5]"#,
        #"[+1]"#,
        #"[1] x"#,              // text after the value
        #"[1e999]"#,            // out of Double's range
        #"[NaN]"#,
        #"{"a": 1, "a": 2}"#,  // a key twice
    ])
    func givesUpOnWhatItDoesNotRead(_ text: String) {
        let read = ModelJSONReader.read(text) { reader -> Int in
            switch reader.peek() {
            case UInt8(ascii: "{"): try reader.object { reader, _ in try reader.skipValue() }
            case UInt8(ascii: "[") where text.contains("\""): _ = try reader.strings()
            default: _ = try reader.doubles()
            }
            return 1
        }
        #expect(read == nil, "\(text)")
    }

    @Test func integersWrittenAsDecimalsAreLeftToJSONDecoder() {
        #expect(ModelJSONReader.read("[1.0]") { reader in try reader.ints() } == nil)
        #expect(ModelJSONReader.read("[1e2]") { reader in try reader.ints() } == nil)
    }

    /// a model file the reader gives up on still loads through JSONDecoder, the same model
    @Test func aModelWithAnEscapedNameLoadsThroughJSONDecoder() throws {
        let plain = #"{"format":"tscope-gradient-boosted-trees/1","featureNames":["x"],"classNames":["c"],"trees":[{"feature":[0],"threshold":[0.5],"defaultLeft":[1],"missingType":[2],"left":[-1],"right":[-2],"leaf":[-1.5,2.25]}]}"#
        let escaped = plain.replacingOccurrences(of: #"["x"]"#, with: #"["\u0078"]"#)
        #expect(ModelJSONReader.read(escaped, GradientBoostedTrees.ModelFile.read) == nil)
        #expect(ModelJSONReader.read(plain, GradientBoostedTrees.ModelFile.read) != nil)
        let a = try GradientBoostedTrees(json: plain), b = try GradientBoostedTrees(json: escaped)
        #expect(b.featureNames == ["x"])
        for value in [0.0, 0.5, 1, .nan] {
            #expect(a.probabilities([value]) == b.probabilities([value]))
        }
    }
}
