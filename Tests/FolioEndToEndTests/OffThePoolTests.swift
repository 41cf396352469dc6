import TestExecution
import Testing

/// The suites that block their thread rely on this trait: check it moves a test's code, sync or
/// async, and its child tasks, onto the blocking-work queue.
@Suite(.offThePool) struct OffThePoolTests {

  @Test func aSynchronousTestRunsOnTheBlockingWorkQueue() {
    #expect(OffTheCooperativePool.isCurrentThreadOffThePool)
  }

  @Test func anAsynchronousTestAndItsChildTasksDoToo() async {
    await Task.yield()
    #expect(OffTheCooperativePool.isCurrentThreadOffThePool)
    async let child = OffTheCooperativePool.isCurrentThreadOffThePool
    #expect(await child)
  }
}

/// And without it, the cooperative pool: the check above can tell the two apart.
@Suite struct OnThePoolTests {
  @Test func anAsynchronousTestWithoutTheTraitRunsOnThePool() async {
    await Task.yield()
    #expect(!OffTheCooperativePool.isCurrentThreadOffThePool)
  }
}
