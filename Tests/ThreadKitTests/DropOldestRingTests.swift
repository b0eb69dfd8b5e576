import Dispatch
import Glibc
import Synchronization
import Testing
import ThreadKit

@Suite struct DropOldestRingTests {
    @Test func aFullRingDropsTheOldestAndCountsIt() {
        let ring = DropOldestRing(capacity: 3, onClose: .drain) { 0 }
        for value in 1...5 { ring.push { $0 = value } }
        #expect(ring.dropped == 2 && ring.count == 3)
        var got: [Int] = []
        while ring.pop(timeout: 0, { got.append($0) }) == .item {}
        #expect(got == [3, 4, 5])
    }

    @Test func closingDrainsOrDiscardsAsAsked() {
        for onClose in [DropOldestRing<Int>.OnClose.drain, .discard] {
            let ring = DropOldestRing(capacity: 4, onClose: onClose) { 0 }
            ring.push { $0 = 1 }
            ring.push { $0 = 2 }
            ring.close()
            #expect(ring.push { $0 = 3 } == false, "no push after close")
            var got: [Int] = []
            var last = DropOldestRing<Int>.Taken.item
            while last == .item { last = ring.pop { got.append($0) } }
            #expect(last == .closed)
            #expect(got == (onClose == .drain ? [1, 2] : []), "\(onClose)")
            ring.reopen()
            ring.push { $0 = 7 }
            #expect(ring.pop(timeout: 0) { got.append($0) } == .item && got.last == 7)
        }
    }

    @Test func anEmptyRingTimesOut() {
        let ring = DropOldestRing(capacity: 1, onClose: .drain) { 0 }
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(ring.pop(timeout: 0.05) { _ in } == .timedOut)
        #expect(DispatchTime.now().uptimeNanoseconds - start >= 40_000_000)
    }

    @Test func extendingTheNewestPacksChunks() {
        let ring = DropOldestRing(capacity: 2, onClose: .drain) { [Int]() }
        #expect(!ring.extendNewest(if: { _ in true }) { $0.append(0) }, "nothing queued yet")
        ring.push { $0 = [1] }
        #expect(ring.extendNewest(if: { $0.count < 2 }) { $0.append(2) })
        #expect(!ring.extendNewest(if: { $0.count < 2 }) { $0.append(3) })
        var got: [Int] = []
        _ = ring.pop(timeout: 0) { got = $0 }
        #expect(got == [1, 2])
    }

    /// A producer on one thread and a consumer waiting on another: with room
    /// for everything nothing is lost and order holds; a sleeping consumer
    /// is woken by the push and by close.
    @Test func aWaitingConsumerGetsEveryItemInOrder() {
        let ring = DropOldestRing(capacity: 100_000, onClose: .drain) { 0 }
        let received = Mutex<[Int]>([])
        let consumer = WorkerThread {
            var local: [Int] = []
            while ring.pop({ local.append($0) }) == .item {}
            received.withLock { $0 = local }
        }
        #expect(consumer != nil)
        for value in 0..<50_000 {
            ring.push { $0 = value }
            if value % 10_000 == 0 { usleep(2_000) }  // let the consumer fall asleep now and then
        }
        ring.close()
        consumer?.join()
        consumer?.join()  // idempotent
        #expect(received.withLock { $0 } == Array(0..<50_000))
        #expect(ring.dropped == 0)
    }

    /// A consumer slower than its producer: the ring never holds more than its
    /// capacity, every item is either received or counted as dropped.
    @Test func aSlowConsumerLosesOnlyCountedItems() {
        let ring = DropOldestRing(capacity: 8, onClose: .drain) { 0 }
        let received = Mutex(0)
        let consumer = WorkerThread {
            var count = 0
            while ring.pop(timeout: 1, { _ in count += 1 }) == .item { if count % 100 == 0 { usleep(100) } }
            received.withLock { $0 = count }
        }
        for value in 0..<20_000 { ring.push { $0 = value } }
        ring.close()
        consumer?.join()
        #expect(received.withLock { $0 } + ring.dropped == 20_000)
    }
}
