%% sys: the system message interface of OTP's special processes, written
%% from OTP 25's documentation. Requests travel as OTP sends them,
%% {system, From, Request}, through gen:call/4 with the label 'system'.
%% Debugging (trace, log, statistics, log_to_file, install) is not
%% supported: those calls stop the run with an error naming them.
-module(sys).
-export([get_state/1, get_state/2, replace_state/2, replace_state/3,
         get_status/1, get_status/2, suspend/1, suspend/2, resume/1,
         resume/2, change_code/4, change_code/5, terminate/2, terminate/3,
         handle_system_msg/6, handle_system_msg/7, handle_debug/4,
         debug_options/1, get_log/1, statistics/2, statistics/3, trace/2,
         trace/3, log/2, log/3, log_to_file/2, log_to_file/3, install/2,
         install/3, remove/2, remove/3, no_debug/1, no_debug/2]).
-export([suspend_loop_hib/6]).

get_state(Name) ->
    case send_system_msg(Name, get_state) of
        {error, {callback_failed, _, _} = Failed} -> erlang:error(Failed);
        State -> State
    end.
get_state(Name, Timeout) ->
    case send_system_msg(Name, get_state, Timeout) of
        {error, {callback_failed, _, _} = Failed} -> erlang:error(Failed);
        State -> State
    end.

replace_state(Name, StateFun) ->
    case send_system_msg(Name, {replace_state, StateFun}) of
        {error, {callback_failed, _, _} = Failed} -> erlang:error(Failed);
        State -> State
    end.
replace_state(Name, StateFun, Timeout) ->
    case send_system_msg(Name, {replace_state, StateFun}, Timeout) of
        {error, {callback_failed, _, _} = Failed} -> erlang:error(Failed);
        State -> State
    end.

get_status(Name) -> send_system_msg(Name, get_status).
get_status(Name, Timeout) -> send_system_msg(Name, get_status, Timeout).

suspend(Name) -> send_system_msg(Name, suspend).
suspend(Name, Timeout) -> send_system_msg(Name, suspend, Timeout).

resume(Name) -> send_system_msg(Name, resume).
resume(Name, Timeout) -> send_system_msg(Name, resume, Timeout).

change_code(Name, Mod, Vsn, Extra) ->
    send_system_msg(Name, {change_code, Mod, Vsn, Extra}).
change_code(Name, Mod, Vsn, Extra, Timeout) ->
    send_system_msg(Name, {change_code, Mod, Vsn, Extra}, Timeout).

terminate(Name, Reason) -> send_system_msg(Name, {terminate, Reason}).
terminate(Name, Reason, Timeout) ->
    send_system_msg(Name, {terminate, Reason}, Timeout).

send_system_msg(Name, Request) ->
    try gen:call(Name, system, Request) of
        {ok, Res} -> Res
    catch
        exit:Reason -> exit({Reason, mfa(Name, Request, [])})
    end.

send_system_msg(Name, Request, Timeout) ->
    try gen:call(Name, system, Request, Timeout) of
        {ok, Res} -> Res
    catch
        exit:Reason -> exit({Reason, mfa(Name, Request, [Timeout])})
    end.

%% The call a failed request names in its exit reason.
mfa(Name, {replace_state, Fun}, T) -> {sys, replace_state, [Name, Fun | T]};
mfa(Name, {change_code, Mod, Vsn, Extra}, T) ->
    {sys, change_code, [Name, Mod, Vsn, Extra | T]};
mfa(Name, {terminate, Reason}, T) -> {sys, terminate, [Name, Reason | T]};
mfa(Name, Atom, T) when is_atom(Atom) -> {sys, Atom, [Name | T]}.

%% The debugging functions.
statistics(_, _) -> no_debugging(statistics).
statistics(_, _, _) -> no_debugging(statistics).
trace(_, _) -> no_debugging(trace).
trace(_, _, _) -> no_debugging(trace).
log(_, _) -> no_debugging(log).
log(_, _, _) -> no_debugging(log).
log_to_file(_, _) -> no_debugging(log_to_file).
log_to_file(_, _, _) -> no_debugging(log_to_file).
install(_, _) -> no_debugging(install).
install(_, _, _) -> no_debugging(install).
remove(_, _) -> no_debugging(remove).
remove(_, _, _) -> no_debugging(remove).
no_debug(_) -> ok.
no_debug(_, _) -> ok.

no_debugging(What) ->
    trace_prelude:unsupported(
      io_lib:format("sys:~tw (sys debugging)", [What])).

debug_options([]) -> [];
debug_options(Opts) ->
    trace_prelude:unsupported(
      io_lib:format("sys debug options ~tp", [Opts])).

get_log(_Debug) -> [].

handle_debug(Debug, _FormFunc, _Extra, _Event) -> Debug.

%%% The process side: called by a special process that received
%%% {system, From, Request}; it never returns (it continues in
%%% Module:system_continue/3 or ends in Module:system_terminate/4).

handle_system_msg(Msg, From, Parent, Module, Debug, Misc) ->
    handle_system_msg(running, Msg, From, Parent, Module, Debug, Misc, false).

handle_system_msg(Msg, From, Parent, Module, Debug, Misc, Hib) ->
    handle_system_msg(running, Msg, From, Parent, Module, Debug, Misc, Hib).

handle_system_msg(SysState, Msg, From, Parent, Mod, Debug, Misc, Hib) ->
    case do_cmd(SysState, Msg, Parent, Mod, Debug, Misc) of
        {suspended, Reply, NDebug, NMisc} ->
            gen:reply(From, Reply),
            suspend_loop(suspended, Parent, Mod, NDebug, NMisc, Hib);
        {running, Reply, NDebug, NMisc} ->
            gen:reply(From, Reply),
            Mod:system_continue(Parent, NDebug, NMisc);
        {{terminating, Reason}, Reply, NDebug, NMisc} ->
            gen:reply(From, Reply),
            Mod:system_terminate(Reason, Parent, NDebug, NMisc)
    end.

%% A suspended process takes only system messages and its parent's exit;
%% everything else waits in the mailbox until it is resumed.
suspend_loop(SysState, Parent, Mod, Debug, Misc, Hib) ->
    receive
        {system, From, Msg} ->
            handle_system_msg(SysState, Msg, From, Parent, Mod, Debug, Misc,
                              Hib);
        {'EXIT', Parent, Reason} ->
            Mod:system_terminate(Reason, Parent, Debug, Misc)
    end.

suspend_loop_hib(SysState, Parent, Mod, Debug, Misc, Hib) ->
    suspend_loop(SysState, Parent, Mod, Debug, Misc, Hib).

do_cmd(_, suspend, _Parent, _Mod, Debug, Misc) ->
    {suspended, ok, Debug, Misc};
do_cmd(_, resume, _Parent, _Mod, Debug, Misc) ->
    {running, ok, Debug, Misc};
do_cmd(SysState, get_state, _Parent, Mod, Debug, Misc) ->
    {SysState, do_get_state(Mod, Misc), Debug, Misc};
do_cmd(SysState, {replace_state, StateFun}, _Parent, Mod, Debug, Misc) ->
    {Res, NMisc} = do_replace_state(StateFun, Mod, Misc),
    {SysState, Res, Debug, NMisc};
do_cmd(SysState, get_status, Parent, Mod, Debug, Misc) ->
    Res = get_status(SysState, Parent, Mod, Debug, Misc),
    {SysState, Res, Debug, Misc};
do_cmd(SysState, {debug, _What}, _Parent, _Mod, Debug, Misc) ->
    {SysState, ok, Debug, Misc};
do_cmd(_, {terminate, Reason}, _Parent, _Mod, Debug, Misc) ->
    {{terminating, Reason}, ok, Debug, Misc};
do_cmd(suspended, {change_code, Module, Vsn, Extra}, _Parent, Mod, Debug,
       Misc) ->
    {Res, NMisc} = do_change_code(Mod, Module, Vsn, Extra, Misc),
    {suspended, Res, Debug, NMisc};
do_cmd(SysState, Other, _Parent, _Mod, Debug, Misc) ->
    {SysState, {error, {unknown_system_msg, Other}}, Debug, Misc}.

do_get_state(Mod, Misc) ->
    case erlang:function_exported(Mod, system_get_state, 1) of
        true ->
            try Mod:system_get_state(Misc) of
                {ok, State} -> State
            catch
                Class:Reason ->
                    {error, {callback_failed, {Mod, system_get_state},
                             {Class, Reason}}}
            end;
        false ->
            Misc
    end.

do_replace_state(StateFun, Mod, Misc) ->
    case erlang:function_exported(Mod, system_replace_state, 2) of
        true ->
            try Mod:system_replace_state(StateFun, Misc) of
                {ok, State, NMisc} -> {State, NMisc}
            catch
                Class:Reason ->
                    {{error, {callback_failed, {Mod, system_replace_state},
                              {Class, Reason}}}, Misc}
            end;
        false ->
            try StateFun(Misc) of
                NMisc -> {NMisc, NMisc}
            catch
                Class:Reason ->
                    {{error, {callback_failed, StateFun, {Class, Reason}}},
                     Misc}
            end
    end.

get_status(SysState, Parent, Mod, Debug, Misc) ->
    PDict = get(),
    FmtMisc =
        case erlang:function_exported(Mod, format_status, 2) of
            true ->
                Mod:format_status(normal, [PDict, SysState, Parent, Debug,
                                           Misc]);
            false ->
                Misc
        end,
    {status, self(), {module, Mod}, [PDict, SysState, Parent, Debug, FmtMisc]}.

do_change_code(Mod, Module, Vsn, Extra, Misc) ->
    case catch Mod:system_code_change(Misc, Module, Vsn, Extra) of
        {ok, NMisc} -> {ok, NMisc};
        Else -> {{error, Else}, Misc}
    end.
